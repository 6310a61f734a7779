import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { Team } from '../../api/types.js';
import { useAppState } from '../../app-context.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DangerZone } from '../../components/danger-zone.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { canDeleteTeam, canTransfer } from '../../lib/team-roles.js';
import { type Member, memberName, refreshProfile } from './team-data.js';

/** Owner and admin rename the team. */
export function RenameTeamForm({ team, onRenamed }: { team: Team; onRenamed: () => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name') ?? '');
    setBusy(true);
    setProblem(null);
    setStatus('');
    try {
      await call(api.PUT('/api/v1/teams/{team}', { params: { path: { team: team.id } }, body: { name } }));
      setStatus('The team was renamed.');
      onRenamed();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack panel" aria-labelledby="rename-title" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="rename-title">Team name</h2>
      <ProblemMessage problem={problem} />
      <Field name="name" label="Name" problem={problem}>
        {(attributes) => <input {...attributes} type="text" maxLength={255} defaultValue={team.name} required />}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Rename team'}
      </button>
      <p class="hint" aria-live="polite">
        {status}
      </p>
    </form>
  );
}

/** The owner's irreversible actions: hand the team to another member, or delete it (neither for a personal team). */
export function TeamDangerZone({ team, members, onTransferred }: { team: Team; members: Member[]; onTransferred: () => void }) {
  const state = useAppState();
  const { route } = useLocation();
  const others = members.filter((member) => member.id !== state.profile.id);
  const [heir, setHeir] = useState<number | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const chosen = others.find((member) => member.id === heir) ?? others[0];

  const transfer = async () => {
    if (chosen === undefined) return;
    setProblem(null);
    try {
      await call(api.POST('/api/v1/teams/{team}/transfer', { params: { path: { team: team.id } }, body: { user_id: chosen.id } }));
      onTransferred();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  const remove = async () => {
    setProblem(null);
    try {
      await call(api.DELETE('/api/v1/teams/{team}', { params: { path: { team: team.id } } }));
      // The deleted team may have been the current one: the server picked another (E4).
      await refreshProfile(state);
      route('/');
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  return (
    <DangerZone id="danger-title">
      <ProblemMessage problem={problem} />
      {canTransfer(team) && others.length === 0 && (
        <p class="hint">To hand this team to someone else, invite them first: ownership goes to another member.</p>
      )}
      {canTransfer(team) && chosen !== undefined && (
        <div class="stack">
          <Field name="user_id" label="Transfer ownership to" problem={problem} hint="You become an admin of the team.">
            {(attributes) => (
              <select {...attributes} value={String(chosen.id)} onChange={(event) => setHeir(Number(event.currentTarget.value))}>
                {others.map((member) => (
                  <option key={member.id} value={String(member.id)}>
                    {memberName(member)} ({member.email})
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div>
            <ConfirmButton
              label="Transfer ownership"
              question={`Make ${memberName(chosen)} the owner of ${team.name}?`}
              onConfirm={transfer}
            />
          </div>
        </div>
      )}
      {canDeleteTeam(team) && (
        <div>
          <p class="hint">Deleting the team deletes its projects and their reports.</p>
          <ConfirmButton label="Delete team" question={`Delete ${team.name} with its ${team.project_count} projects?`} onConfirm={remove} />
        </div>
      )}
    </DangerZone>
  );
}
