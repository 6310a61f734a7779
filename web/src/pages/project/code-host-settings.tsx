import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { components } from '../../api/schema.js';
import type { Project } from '../../api/types.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { isCodeHostProvider, isNotLinked, linkSummary, repositoryPlaceholder } from '../../lib/code-host.js';
import { PROVIDER_LABELS } from '../../lib/connections.js';
import { useApi } from '../../lib/use-api.js';
import { CodeHostDeliveries } from './code-host-deliveries.js';

type CodeHost = components['schemas']['CodeHost'];
type Connection = { id: string; provider: string; name: string };

/**
 * E10.6: where the project's results are posted. A link (E10.1) names one of the team's
 * connections to GitHub (a token or an App), GitLab, Gitea or Bitbucket, the repository there, and
 * whether commits get a status and pull requests a comment. The team's connections are listed for
 * its owners and admins only, who alone may link and unlink: anyone else sees the link and is told
 * whom to ask. The API's 404 for a project without a link is that state, not a problem.
 */
export function CodeHostSettings({ project }: { project: Project }) {
  const codeHost = useApi(async (): Promise<CodeHost | null> => {
    try {
      return (await call(api.GET('/api/v1/projects/{project}/code-host', { params: { path: { project: project.id } } }))).data;
    } catch (error) {
      if (isNotLinked(asProblem(error))) return null;
      throw error;
    }
  }, [project.id]);
  const connections = useApi(
    async () => (await call(api.GET('/api/v1/teams/{team}/connections', { params: { path: { team: project.team_id } } }))).data,
    [project.team_id],
  );
  const linked = codeHost.data;
  return (
    <section class="panel stack code-host-settings" aria-labelledby="code-host-title">
      <h2 id="code-host-title">Code host</h2>
      <p class="hint">
        Reports are posted back to the repository linked here: each analysed commit gets a status (a check run for a GitHub App), and each
        pull request one comment with the score, the gate and the new issues, kept current.
      </p>
      <ProblemMessage problem={codeHost.problem} />
      {linked !== undefined && (
        <p class="code-host-now" role="status">
          {linkSummary(linked)}
        </p>
      )}
      {linked !== undefined && (
        <LinkForm
          projectId={project.id}
          linked={linked}
          connections={connections.data}
          hidden={connections.problem !== null && (connections.problem.status === 403 || connections.problem.status === 404)}
          onChanged={codeHost.reload}
        />
      )}
      {linked && <CodeHostDeliveries projectId={project.id} />}
    </section>
  );
}

const providerLabel = (provider: string) => PROVIDER_LABELS[provider as keyof typeof PROVIDER_LABELS] ?? provider;

/** PUT .../code-host with one of the team's code-host connections, the repository and the two choices; DELETE unlinks. */
function LinkForm({
  projectId,
  linked,
  connections,
  hidden,
  onChanged,
}: {
  projectId: string;
  linked: CodeHost | null;
  connections: Connection[] | undefined;
  hidden: boolean;
  onChanged: () => void;
}) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  // The repository's placeholder follows the connection chosen; until a choice, the linked one's (or the first's).
  const [chosen, setChosen] = useState<string | null>(null);
  if (hidden) {
    return (
      <p class="hint">
        {linked === null
          ? 'The team’s owners and admins see its connections: ask one of them to link a code host.'
          : 'The team’s owners and admins see its connections and may change or remove the link.'}
      </p>
    );
  }
  const choices = (connections ?? []).filter((connection) => isCodeHostProvider(connection.provider));
  const selectedId = chosen ?? linked?.connection.id ?? choices[0]?.id;
  const selected = choices.find((connection) => connection.id === selectedId);
  // Inputs keep what is stored until it changes: a save or an unlink gives them the new link's values.
  const version = linked?.updated_at ?? 'none';

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setProblem(null);
    setStatus('');
    try {
      const answer = await call(
        api.PUT('/api/v1/projects/{project}/code-host', {
          params: { path: { project: projectId } },
          body: {
            connection_id: String(form.get('connection_id') ?? ''),
            repository: String(form.get('repository') ?? '').trim(),
            commit_status: form.get('commit_status') !== null,
            pull_request_comment: form.get('pull_request_comment') !== null,
          },
        }),
      );
      setStatus(`${answer.data.repository} is linked through ${answer.data.connection.name}.`);
      setChosen(null);
      onChanged();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  const unlink = async () => {
    setProblem(null);
    setStatus('');
    try {
      await call(api.DELETE('/api/v1/projects/{project}/code-host', { params: { path: { project: projectId } } }));
      setStatus('The code host was unlinked.');
      setChosen(null);
      onChanged();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  return (
    <form class="stack" aria-labelledby="code-host-link-title" onSubmit={(event) => void submit(event)} noValidate>
      <h3 id="code-host-link-title">Linked repository</h3>
      <ProblemMessage problem={problem} />
      {connections !== undefined && choices.length === 0 && (
        <p class="hint">The team has no connection to GitHub, GitLab, Gitea or Bitbucket yet: add one on the team’s page.</p>
      )}
      <div class="form-grid">
        <Field
          name="connection_id"
          id="code-host-connection"
          label="Connection"
          problem={problem}
          hint="The team’s connections to GitHub (a token or an App), GitLab, Gitea and Bitbucket."
        >
          {(attributes) => (
            <select {...attributes} key={version} onChange={(event) => setChosen(event.currentTarget.value)}>
              {connections !== undefined && choices.length === 0 && <option value="">No code-host connection</option>}
              {choices.map((connection) => (
                <option key={connection.id} value={connection.id} selected={connection.id === selectedId}>
                  {connection.name} ({providerLabel(connection.provider)})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          name="repository"
          id="code-host-repository"
          label="Repository"
          problem={problem}
          hint="As the host names it: owner/repo on GitHub and Gitea, the project’s path (or id) on GitLab, workspace/repo_slug on Bitbucket."
        >
          {(attributes) => (
            <input
              {...attributes}
              key={version}
              type="text"
              maxLength={255}
              autoComplete="off"
              spellcheck={false}
              placeholder={repositoryPlaceholder(selected?.provider)}
              defaultValue={linked?.repository ?? ''}
              required
            />
          )}
        </Field>
      </div>
      <fieldset key={version}>
        <legend>What is posted</legend>
        <label class="check">
          <input type="checkbox" name="commit_status" defaultChecked={linked?.commit_status ?? true} />
          <span>
            Commit status <span class="hint">— on every analysed commit; a GitHub App posts a check run with annotations</span>
          </span>
        </label>
        <label class="check">
          <input type="checkbox" name="pull_request_comment" defaultChecked={linked?.pull_request_comment ?? true} />
          <span>
            Pull-request comment <span class="hint">— one per pull request, edited by each later report</span>
          </span>
        </label>
      </fieldset>
      <p role="status">{status}</p>
      <div class="connection-actions">
        <button type="submit" disabled={busy || (connections !== undefined && choices.length === 0)}>
          {linked === null ? 'Link repository' : 'Save code host'}
        </button>
        {linked !== null && (
          <ConfirmButton
            label="Unlink"
            question={`Unlink ${linked.repository}? Nothing more is posted there (calls already queued are still made).`}
            onConfirm={unlink}
          />
        )}
      </div>
    </form>
  );
}
