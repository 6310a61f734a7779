import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { components } from '../../api/schema.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import {
  baseUrlPlaceholder,
  CREDENTIAL_KINDS,
  connectionBody,
  credentialKind,
  isProvider,
  PROVIDER_LABELS,
  PROVIDERS,
  type Provider,
} from '../../lib/connections.js';
import { formatDate } from '../../lib/format.js';
import { useApi } from '../../lib/use-api.js';

type Connection = components['schemas']['Connection'];

/**
 * E9.6: the team's connections (E9.1), owner and admin only: each with its provider, base URL, the
 * last four characters of its secret and when it was last used, a check (one read at the provider,
 * its answer said beside it) and delete; and the form to add one. Credentials are typed into
 * password inputs and never come back: the API answers only their hint.
 */
export function TeamConnections({ teamId }: { teamId: number }) {
  const connections = useApi(
    async () => (await call(api.GET('/api/v1/teams/{team}/connections', { params: { path: { team: teamId } } }))).data,
    [teamId],
  );
  const [status, setStatus] = useState('');
  // A role that changed meanwhile answers 403 (or 404): the section is hidden, as the invitations are.
  if (connections.problem?.status === 403 || connections.problem?.status === 404) return null;
  return (
    <section class="panel stack connections" aria-labelledby="connections-title">
      <h2 id="connections-title">Connections</h2>
      <p class="hint">
        The team’s accounts at GitHub, GitLab, Gitea, Bitbucket, Jira and Linear. A project links one of Jira, Linear, GitHub or GitLab as
        its tracker in its settings, and its issues become tickets there.
      </p>
      <ProblemMessage problem={connections.problem} />
      {connections.data?.length === 0 && <p class="empty">No connections yet. Add one below.</p>}
      {connections.data && connections.data.length > 0 && (
        <ul class="cards connection-list">
          {connections.data.map((connection) => (
            <ConnectionCard
              key={connection.id}
              teamId={teamId}
              connection={connection}
              onDeleted={() => {
                setStatus(`The connection ${connection.name} was deleted.`);
                connections.reload();
              }}
            />
          ))}
        </ul>
      )}
      <p class="hint" aria-live="polite">
        {status}
      </p>
      <NewConnectionForm
        teamId={teamId}
        onAdded={(connection) => {
          setStatus(`The connection ${connection.name} was added: check it to see that its credentials work.`);
          connections.reload();
        }}
      />
    </section>
  );
}

function ConnectionCard({ teamId, connection, onDeleted }: { teamId: number; connection: Connection; onDeleted: () => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [check, setCheck] = useState<{ ok: boolean; message: string } | null>(null);
  const [checking, setChecking] = useState(false);
  const [lastUsed, setLastUsed] = useState(connection.last_used_at);
  const path = { params: { path: { team: teamId, connection: connection.id } } };
  const titleId = `connection-${connection.id}-name`;

  const runCheck = async () => {
    setProblem(null);
    setCheck(null);
    setChecking(true);
    try {
      setCheck((await call(api.POST('/api/v1/teams/{team}/connections/{connection}/check', path))).data);
      // The check was a call to the provider: it is the connection's latest use.
      setLastUsed(new Date().toISOString());
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setChecking(false);
    }
  };
  const remove = async () => {
    setProblem(null);
    try {
      await call(api.DELETE('/api/v1/teams/{team}/connections/{connection}', path));
      onDeleted();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  return (
    <li class="card connection" aria-labelledby={titleId}>
      <h3 id={titleId}>{connection.name}</h3>
      <dl class="facts">
        <div>
          <dt>Provider</dt>
          <dd>{isProvider(connection.provider) ? PROVIDER_LABELS[connection.provider] : connection.provider}</dd>
        </div>
        <div class="fact-wide">
          <dt>Base URL</dt>
          <dd class="connection-url">{connection.base_url}</dd>
        </div>
        <div>
          <dt>Credentials</dt>
          <dd>
            <span class="visually-hidden">ending in </span>…{connection.credentials_hint}
          </dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{lastUsed === null ? 'Never' : formatDate(lastUsed)}</dd>
        </div>
      </dl>
      <ProblemMessage problem={problem} />
      <p role="status" class={check === null ? 'connection-check' : `connection-check ${check.ok ? 'check-ok' : 'check-failed'}`}>
        {check === null ? '' : `${check.ok ? 'Check passed' : 'Check failed'}: ${check.message}`}
      </p>
      <div class="connection-actions">
        <button type="button" class="secondary" disabled={checking} aria-label={`Check ${connection.name}`} onClick={() => void runCheck()}>
          {checking ? 'Checking…' : 'Check'}
        </button>
        <ConfirmButton
          label="Delete"
          question={`Delete the connection ${connection.name}? Projects whose tracker it is are unlinked.`}
          onConfirm={remove}
        />
      </div>
    </li>
  );
}

function NewConnectionForm({ teamId, onAdded }: { teamId: number; onAdded: (connection: Connection) => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [provider, setProvider] = useState<Provider>('github');
  const [kindId, setKindId] = useState<string | null>(null);
  const kinds = CREDENTIAL_KINDS[provider];
  const kind = credentialKind(provider, kindId);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setBusy(true);
    setProblem(null);
    try {
      const body = connectionBody((name) => {
        const value = data.get(name);
        return value === null ? null : String(value);
      });
      const created = await call(api.POST('/api/v1/teams/{team}/connections', { params: { path: { team: teamId } }, body }));
      // The secrets leave the page with the form's reset: nothing typed is kept, nothing is shown again.
      form.reset();
      setProvider('github');
      setKindId(null);
      onAdded(created.data);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack new-connection" aria-labelledby="new-connection-title" onSubmit={(event) => void submit(event)} noValidate>
      <h3 id="new-connection-title">Add a connection</h3>
      <ProblemMessage problem={problem} />
      <Field name="provider" id="connection-provider" label="Provider" problem={problem}>
        {(attributes) => (
          <select
            {...attributes}
            value={provider}
            onChange={(event) => {
              const chosen = event.currentTarget.value;
              if (isProvider(chosen)) setProvider(chosen);
              setKindId(null);
            }}
          >
            {PROVIDERS.map((choice) => (
              <option key={choice} value={choice}>
                {PROVIDER_LABELS[choice]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        name="name"
        id="connection-name"
        label="Name"
        problem={problem}
        hint="For people: shown in the team’s and its projects’ settings."
      >
        {(attributes) => <input {...attributes} type="text" maxLength={100} required />}
      </Field>
      <Field
        name="base_url"
        id="connection-base-url"
        label={provider === 'gitea' || provider === 'jira' ? 'Base URL' : 'Base URL (optional)'}
        problem={problem}
        hint={
          provider === 'jira'
            ? 'Your Jira site (https://SITE.atlassian.net) or Data Center URL.'
            : provider === 'gitea'
              ? 'The API root of your instance, ending in /api/v1.'
              : `Empty: ${baseUrlPlaceholder(provider)}. Give the API root of a self-hosted instance.`
        }
      >
        {(attributes) => <input {...attributes} type="url" maxLength={2048} placeholder={baseUrlPlaceholder(provider)} />}
      </Field>
      {kinds.length > 1 && (
        <Field name="credential_kind" id="connection-credential-kind" label="Sign in with" problem={problem}>
          {(attributes) => (
            <select {...attributes} value={kind.id} onChange={(event) => setKindId(event.currentTarget.value)}>
              {kinds.map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {kind.fields.map((field) => (
        <Field
          key={`${provider}-${kind.id}-${field.name}`}
          name={`credentials.${field.name}`}
          id={`connection-credentials-${field.name}`}
          label={field.label}
          problem={problem}
          hint={field.secret ? 'Stored encrypted and never shown again; only its last four characters are.' : undefined}
        >
          {(attributes) =>
            field.secret ? (
              <input {...attributes} type="password" maxLength={4096} autoComplete="new-password" required />
            ) : (
              <input {...attributes} type="email" maxLength={320} autoComplete="off" required />
            )
          }
        </Field>
      ))}
      <div>
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add connection'}
        </button>
      </div>
    </form>
  );
}
