import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import { EmailAddress } from '../../components/email-address.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { formatDate } from '../../lib/format.js';
import { ASSIGNABLE_ROLES, type AssignableRole, ROLE_LABELS } from '../../lib/team-roles.js';
import { useApi } from '../../lib/use-api.js';

/** Owner and admin: the team's pending invitations (cancel) and the form to invite someone by email. */
export function TeamInvitations({ teamId }: { teamId: number }) {
  const path = { team: teamId };
  const invitations = useApi(async () => (await call(api.GET('/api/v1/teams/{team}/invitations', { params: { path } }))).data, [teamId]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [status, setStatus] = useState('');
  // E4: only owner and admin see invitations; a role that changed meanwhile answers 403 (or 404): the part is hidden.
  const hidden = invitations.problem !== null && (invitations.problem.status === 403 || invitations.problem.status === 404);
  if (hidden) return null;

  const cancel = async (id: number, email: string) => {
    setProblem(null);
    try {
      await call(api.DELETE('/api/v1/teams/{team}/invitations/{id}', { params: { path: { team: teamId, id } } }));
      setStatus(`The invitation for ${email} was cancelled.`);
      invitations.reload();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  return (
    <>
      <section class="panel" aria-labelledby="pending-invitations-title">
        <h2 id="pending-invitations-title">Pending invitations</h2>
        <ProblemMessage problem={invitations.problem ?? problem} />
        {invitations.data?.length === 0 && <p class="hint">No invitations are waiting. Invite someone by email below.</p>}
        {invitations.data && invitations.data.length > 0 && (
          <ul class="invitation-list">
            {invitations.data.map((invitation) => (
              <li key={invitation.id}>
                <span>
                  <strong>
                    <EmailAddress email={invitation.email} />
                  </strong>{' '}
                  as {ROLE_LABELS[invitation.role]}
                  <span class="hint"> · expires {formatDate(invitation.expires_at)}</span>
                </span>
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Cancel invitation for ${invitation.email}`}
                  onClick={() => void cancel(invitation.id, invitation.email)}
                >
                  Cancel invitation
                </button>
              </li>
            ))}
          </ul>
        )}
        <p class="hint" aria-live="polite">
          {status}
        </p>
      </section>
      <InviteForm
        teamId={teamId}
        onInvited={(email) => {
          setStatus(`${email} is invited: they see the invitation on their Invitations page once signed in.`);
          invitations.reload();
        }}
      />
    </>
  );
}

function InviteForm({ teamId, onInvited }: { teamId: number; onInvited: (email: string) => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setBusy(true);
    setProblem(null);
    try {
      const body = { email: String(data.get('email') ?? '').trim(), role: String(data.get('role')) as AssignableRole };
      const answer = await call(api.POST('/api/v1/teams/{team}/invitations', { params: { path: { team: teamId } }, body }));
      form.reset();
      onInvited(answer.invitation.email);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack panel" aria-labelledby="invite-title" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="invite-title">Invite someone</h2>
      <ProblemMessage problem={problem} />
      <Field name="email" label="Email" problem={problem} hint="They need a Scoreboard account with this email to accept.">
        {(attributes) => <input {...attributes} type="email" maxLength={255} autoComplete="off" required />}
      </Field>
      <Field name="role" label="Role" problem={problem}>
        {(attributes) => (
          <select {...attributes}>
            {ASSIGNABLE_ROLES.map((role) => (
              <option key={role.value} value={role.value} selected={role.value === 'member'}>
                {role.label} — {role.hint}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Inviting…' : 'Send invitation'}
      </button>
    </form>
  );
}
