import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { paths } from '../../api/schema.js';
import type { Project } from '../../api/types.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { isTicketProvider, PROVIDER_LABELS, TICKET_PROVIDERS } from '../../lib/connections.js';
import { useApi } from '../../lib/use-api.js';
import { TrackerDeliveries } from './tracker-deliveries.js';

const TRACKERS = ['internal', ...TICKET_PROVIDERS] as const;
type ProjectUpdate = paths['/api/v1/projects/{project}']['put']['requestBody']['content']['application/json'];
type Settings = NonNullable<ProjectUpdate['settings']>;

const orNull = (value: FormDataEntryValue | null): string | null =>
  value === null || String(value).trim() === '' ? null : String(value).trim();

/**
 * E9.6: where the project's tickets go. The target (D14's `ticket_target_project_key` and `_name`,
 * and `primary_tracker`) is saved through the project's update, as every setting is; the tracker is
 * one of the team's connections to Jira, Linear, GitHub or GitLab (E9.3), linked or unlinked. The
 * team's connections are listed for its owners and admins only: anyone else sees the link and is
 * told whom to ask.
 */
export function TrackerSettings({ project, onSaved }: { project: Project; onSaved: () => void }) {
  const tracker = useApi(
    async () => (await call(api.GET('/api/v1/projects/{project}/tracker', { params: { path: { project: project.id } } }))).data,
    [project.id],
  );
  const connections = useApi(
    async () => (await call(api.GET('/api/v1/teams/{team}/connections', { params: { path: { team: project.team_id } } }))).data,
    [project.team_id],
  );
  const linked = tracker.data?.connection ?? null;
  const target = tracker.data?.target ?? { key: null, name: null };
  const reload = () => {
    tracker.reload();
    onSaved();
  };
  return (
    <section class="panel stack tracker-settings" aria-labelledby="tracker-title">
      <h2 id="tracker-title">Tracker</h2>
      <p class="hint">Issues of this project become tickets at the tracker linked here, in the project named by its key.</p>
      <ProblemMessage problem={tracker.problem} />
      {tracker.data && (
        <p class="tracker-now" role="status">
          {linked === null
            ? 'No tracker is linked: the issues have no “Create ticket”.'
            : `Tickets go to ${PROVIDER_LABELS[linked.provider as keyof typeof PROVIDER_LABELS] ?? linked.provider} through ${linked.name}${
                target.key === null ? '' : `, project ${target.key}${target.name === null ? '' : ` (${target.name})`}`
              }.`}
        </p>
      )}
      <TargetForm project={project} onSaved={reload} />
      <LinkForm
        projectId={project.id}
        linked={linked}
        connections={connections.data}
        hidden={connections.problem !== null && (connections.problem.status === 403 || connections.problem.status === 404)}
        onLinked={reload}
      />
      {linked !== null && <TrackerDeliveries projectId={project.id} />}
    </section>
  );
}

/** D14's tracker settings, saved with the project's update (`settings` merge key by key: the others stay). */
function TargetForm({ project, onSaved }: { project: Project; onSaved: () => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const settings = project.settings;
  // The fields are keyed by what is stored: linking a tracker changes primary_tracker, and the select follows.

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next: Settings = {
      primary_tracker: orNull(form.get('settings.primary_tracker')) as Settings['primary_tracker'],
      ticket_target_project_key: orNull(form.get('settings.ticket_target_project_key')),
      ticket_target_project_name: orNull(form.get('settings.ticket_target_project_name')),
    };
    setBusy(true);
    setProblem(null);
    setSaved(false);
    try {
      const body: ProjectUpdate = {
        name: project.name,
        framework_version: project.framework_version as ProjectUpdate['framework_version'],
        settings: next,
      };
      await call(api.PUT('/api/v1/projects/{project}', { params: { path: { project: project.id } }, body }));
      setSaved(true);
      onSaved();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack" aria-labelledby="tracker-target-title" onSubmit={(event) => void submit(event)} noValidate>
      <h3 id="tracker-target-title">Where tickets go</h3>
      <ProblemMessage problem={problem} />
      <div class="form-grid">
        <Field
          name="settings.ticket_target_project_key"
          label="Tracker project key"
          problem={problem}
          hint="A Jira project key (SHOP), a Linear team key (ENG), GitHub’s owner/repo or a GitLab project path. Required before a tracker is linked."
        >
          {(attributes) => (
            <input
              {...attributes}
              key={settings.ticket_target_project_key}
              type="text"
              maxLength={100}
              defaultValue={settings.ticket_target_project_key ?? ''}
            />
          )}
        </Field>
        <Field name="settings.ticket_target_project_name" label="Tracker project name" problem={problem}>
          {(attributes) => (
            <input
              {...attributes}
              key={settings.ticket_target_project_name}
              type="text"
              maxLength={255}
              defaultValue={settings.ticket_target_project_name ?? ''}
            />
          )}
        </Field>
        <Field
          name="settings.primary_tracker"
          label="Issue tracker"
          problem={problem}
          hint="Linking a connection below sets it to the connection’s provider."
        >
          {(attributes) => (
            <select {...attributes} key={settings.primary_tracker}>
              <option value="">Not set</option>
              {TRACKERS.map((choice) => (
                <option key={choice} value={choice} selected={choice === settings.primary_tracker}>
                  {choice}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {saved && <p role="status">The tracker settings were saved.</p>}
      <div>
        <button type="submit" disabled={busy}>
          Save tracker settings
        </button>
      </div>
    </form>
  );
}

type Connection = { id: string; provider: string; name: string };

/** PUT .../tracker: one of the team's ticket connections, or none (unlinked; the settings stay). */
function LinkForm({
  projectId,
  linked,
  connections,
  hidden,
  onLinked,
}: {
  projectId: string;
  linked: Connection | null;
  connections: Connection[] | undefined;
  hidden: boolean;
  onLinked: () => void;
}) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  if (hidden) {
    return (
      <p class="hint">
        {linked === null
          ? 'The team’s owners and admins see its connections: ask one of them to link a tracker.'
          : 'The team’s owners and admins see its connections and may link another.'}
      </p>
    );
  }
  const choices = (connections ?? []).filter((connection) => isTicketProvider(connection.provider));

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const chosen = orNull(new FormData(event.currentTarget as HTMLFormElement).get('connection_id'));
    setBusy(true);
    setProblem(null);
    setStatus('');
    try {
      const answer = await call(
        api.PUT('/api/v1/projects/{project}/tracker', { params: { path: { project: projectId } }, body: { connection_id: chosen } }),
      );
      const now = answer.data.connection;
      setStatus(now === null ? 'The tracker was unlinked.' : `${now.name} is the project’s tracker.`);
      onLinked();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack" aria-labelledby="tracker-link-title" onSubmit={(event) => void submit(event)} noValidate>
      <h3 id="tracker-link-title">Linked connection</h3>
      <ProblemMessage problem={problem} />
      {connections !== undefined && choices.length === 0 && (
        <p class="hint">The team has no connection to Jira, Linear, GitHub or GitLab yet: add one on the team’s page.</p>
      )}
      <Field
        name="connection_id"
        id="tracker-connection"
        label="Connection"
        problem={problem}
        hint="The team’s connections to Jira, Linear, GitHub and GitLab."
      >
        {(attributes) => (
          <select {...attributes} key={linked?.id ?? 'none'}>
            <option value="">None: no tickets</option>
            {choices.map((connection) => (
              <option key={connection.id} value={connection.id} selected={connection.id === linked?.id}>
                {connection.name} ({PROVIDER_LABELS[connection.provider as keyof typeof PROVIDER_LABELS] ?? connection.provider})
              </option>
            ))}
          </select>
        )}
      </Field>
      <p role="status">{status}</p>
      <div>
        <button type="submit" disabled={busy}>
          Save linked connection
        </button>
      </div>
    </form>
  );
}
