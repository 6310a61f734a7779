import { useState } from 'preact/hooks';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import type { Project } from '../api/types.js';
import { CopyButton } from '../components/copy-button.js';
import { Field } from '../components/field.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ShownOnce } from '../components/shown-once.js';
import { ANALYZE_COMMAND, clientEnvLines, INSTALL_COMMAND } from '../lib/client-setup.js';
import { usePageTitle } from '../lib/use-api.js';

const FRAMEWORK_VERSIONS = ['13', '12', '11', '10', '9'] as const;
type FrameworkVersion = (typeof FRAMEWORK_VERSIONS)[number];

/** E7 new project: POST /api/v1/projects, then the API token, shown this once, and how to set up the client. */
export function NewProjectPage() {
  usePageTitle('New project');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ project: Project; apiToken: string } | null>(null);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const repositoryUrl = String(form.get('repository_url') ?? '').trim();
    setBusy(true);
    setProblem(null);
    try {
      const body = {
        name: String(form.get('name') ?? ''),
        framework_version: String(form.get('framework_version')) as FrameworkVersion,
        repository_url: repositoryUrl === '' ? null : repositoryUrl,
      };
      const answer = await call(api.POST('/api/v1/projects', { body }));
      setCreated({ project: answer.project, apiToken: answer.api_token });
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  if (created) return <ProjectCreated {...created} />;
  return (
    <section class="narrow" aria-labelledby="new-project-title">
      <h1 id="new-project-title">New project</h1>
      <form class="stack" onSubmit={(event) => void submit(event)} noValidate>
        <ProblemMessage problem={problem} />
        <Field name="name" label="Name" problem={problem}>
          {(attributes) => <input {...attributes} type="text" maxLength={255} required />}
        </Field>
        <Field name="framework_version" label="Laravel version" problem={problem} hint="The major version the application runs on.">
          {(attributes) => (
            <select {...attributes}>
              {FRAMEWORK_VERSIONS.map((version) => (
                <option key={version} value={version}>
                  {version}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field name="repository_url" label="Repository URL (optional)" problem={problem} hint="For example https://github.com/acme/shop.">
          {(attributes) => <input {...attributes} type="url" maxLength={500} />}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create project'}
        </button>
      </form>
    </section>
  );
}

function ProjectCreated({ project, apiToken }: { project: Project; apiToken: string }) {
  usePageTitle(`${project.name} created`);
  const env = clientEnvLines({ serviceUrl: window.location.origin, apiToken, projectId: project.id });
  return (
    <section class="narrow" aria-labelledby="created-title">
      <h1 id="created-title">{project.name} is ready</h1>
      <ShownOnce
        title="API token"
        id="api-token"
        secret={apiToken}
        note="This is the only time the token is shown. Copy it now; if it is lost, regenerate it on the project's page."
      />
      <h2>Send the first report</h2>
      <ol class="steps">
        <li>
          <p>Install the client package in the Laravel application:</p>
          <pre>
            <code>{INSTALL_COMMAND}</code>
          </pre>
        </li>
        <li>
          <p>
            Add these lines to its <code>.env</code>:
          </p>
          <pre>
            <code>{env}</code>
          </pre>
          <CopyButton text={env} label="Copy .env lines" />
        </li>
        <li>
          <p>Run the analysis and send its report:</p>
          <pre>
            <code>{ANALYZE_COMMAND}</code>
          </pre>
        </li>
      </ol>
      <p>
        <a href={pageUrl('project', { project: project.id })}>Go to the project</a> · <a href="/">Back to projects</a>
      </p>
    </section>
  );
}
