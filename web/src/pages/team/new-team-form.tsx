import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { pageUrl } from '../../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import { useAppState } from '../../app-context.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { refreshProfile } from './team-data.js';

/** POST /api/v1/teams (Business or Enterprise plan; the 403 says so in words), then the new team, now current, opens. */
export function NewTeamForm() {
  const state = useAppState();
  const { route } = useLocation();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') ?? '');
    setBusy(true);
    setProblem(null);
    try {
      const { team } = await call(api.POST('/api/v1/teams', { body: { name } }));
      await refreshProfile(state);
      route(pageUrl('team', { team: team.id }));
    } catch (error) {
      setProblem(asProblem(error));
      setBusy(false);
    }
  };

  return (
    <form class="stack panel" aria-labelledby="new-team-title" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="new-team-title">New team</h2>
      <p class="hint">Teams share projects between people. Creating one needs a Business or Enterprise plan; you become its owner.</p>
      <ProblemMessage problem={problem} />
      <Field name="name" label="Team name" problem={problem}>
        {(attributes) => <input {...attributes} type="text" maxLength={255} required />}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Create team'}
      </button>
    </form>
  );
}
