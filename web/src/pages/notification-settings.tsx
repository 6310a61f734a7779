import { useState } from 'preact/hooks';
import { NEW_ISSUES_LEVELS, type NewIssuesLevel } from '../../../src/notifications/notification-vocabulary.js';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import { Field } from '../components/field.js';
import { ProblemMessage } from '../components/problem-message.js';
import { useApi } from '../lib/use-api.js';

const LEVEL_LABELS: Record<NewIssuesLevel, string> = {
  critical: 'Critical only',
  high: 'High and above',
  medium: 'Medium and above',
  low: 'Low and above',
  none: 'Never',
};

/** E11.6: the person's notification choices, on the profile page. */
export function NotificationSettingsForm() {
  const settings = useApi(async () => (await call(api.GET('/api/v1/user/notifications'))).data, []);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setProblem(null);
    setDone(null);
    try {
      await call(
        api.PUT('/api/v1/user/notifications', {
          body: {
            gate_failed: form.get('gate_failed') !== null,
            new_issues: String(form.get('new_issues') ?? 'critical') as NewIssuesLevel,
            assigned: form.get('assigned') !== null,
            weekly_digest: form.get('weekly_digest') !== null,
          },
        }),
      );
      setDone('Your notification settings were saved.');
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const current = settings.data;
  return (
    <form class="stack panel" aria-labelledby="notifications-title" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="notifications-title">Notifications</h2>
      <ProblemMessage problem={settings.problem ?? problem} />
      {settings.loading && !current && <p aria-busy="true">Loading…</p>}
      {current && (
        <>
          {!current.email_available && (
            <p class="notice" id="email-unavailable">
              Email is not configured on this server: your choices are kept, but no email is sent until the operator sets it up.
            </p>
          )}
          <fieldset>
            <legend>Email me when</legend>
            <label class="check">
              <input type="checkbox" name="gate_failed" defaultChecked={current.gate_failed} />
              <span>a branch's quality gate fails, and when it passes again</span>
            </label>
            <label class="check">
              <input type="checkbox" name="assigned" defaultChecked={current.assigned} />
              <span>someone assigns an issue to me</span>
            </label>
          </fieldset>
          <Field name="new_issues" label="New issues" problem={problem} hint="Email me when a report brings new issues of this severity.">
            {(attributes) => (
              <select {...attributes}>
                {NEW_ISSUES_LEVELS.map((level) => (
                  <option key={level} value={level} selected={level === current.new_issues}>
                    {LEVEL_LABELS[level]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <label class="check">
            <input type="checkbox" name="weekly_digest" defaultChecked={current.weekly_digest} />
            <span>A weekly digest of my projects, on Monday mornings</span>
          </label>
          {current.muted_projects.length > 0 && (
            <p class="hint">
              {current.muted_projects.length === 1 ? 'One project is muted' : `${current.muted_projects.length} projects are muted`}: unmute
              them from their pages.
            </p>
          )}
          {done && <p role="status">{done}</p>}
          <button type="submit" disabled={busy}>
            Save notifications
          </button>
        </>
      )}
    </form>
  );
}

/**
 * E11.6: a project's Mute or Unmute button; sends the person's whole list with this project added or
 * removed (the API's list replaces the stored one).
 */
export function MuteButton({ projectId }: { projectId: string }) {
  const settings = useApi(async () => (await call(api.GET('/api/v1/user/notifications'))).data, [projectId]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  if (!settings.data) return <ProblemMessage problem={settings.problem} />;
  const muted = settings.data.muted_projects.includes(projectId);
  const toggle = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const fresh = (await call(api.GET('/api/v1/user/notifications'))).data.muted_projects;
      const list = muted ? fresh.filter((id) => id !== projectId) : [...fresh.filter((id) => id !== projectId), projectId];
      await call(api.PUT('/api/v1/user/notifications', { body: { muted_projects: list } }));
      settings.reload();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="mute">
      <ProblemMessage problem={problem} />
      <button type="button" aria-pressed={muted} disabled={busy} onClick={() => void toggle()}>
        {muted ? 'Unmute' : 'Mute'}
      </button>
      <span class="hint">{muted ? ' This project sends you no notifications.' : ' Stop notifications about this project.'}</span>
    </div>
  );
}
