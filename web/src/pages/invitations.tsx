import { useState } from 'preact/hooks';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import { useAppState } from '../app-context.js';
import { ProblemMessage } from '../components/problem-message.js';
import { formatDate } from '../lib/format.js';
import { ROLE_LABELS } from '../lib/team-roles.js';
import { useApi, usePageTitle } from '../lib/use-api.js';
import { NewTeamForm } from './team/new-team-form.js';
import { type Invitation, refreshProfile } from './team/team-data.js';

/** A team just joined, linked from the page once the invitation is accepted. */
interface Joined {
  id: number;
  name: string;
}

/** E7 invitations: the invitations addressed to the person's email (accept or decline), and creating a team of their own. */
export function InvitationsPage() {
  usePageTitle('Invitations');
  const state = useAppState();
  const invitations = useApi(async () => (await call(api.GET('/api/v1/invitations'))).data, []);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [joined, setJoined] = useState<Joined | null>(null);
  const [status, setStatus] = useState('');

  const accept = async (invitation: Invitation) => {
    setProblem(null);
    setStatus('');
    try {
      const { data } = await call(api.POST('/api/v1/invitations/{id}/accept', { params: { path: { id: invitation.id } } }));
      setJoined({ id: data.id, name: data.name });
      invitations.reload();
      // Accepting makes the team current for someone who had none (E4).
      await refreshProfile(state);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  const decline = async (invitation: Invitation) => {
    setProblem(null);
    setJoined(null);
    try {
      await call(api.POST('/api/v1/invitations/{id}/decline', { params: { path: { id: invitation.id } } }));
      setStatus(`You declined the invitation to ${invitation.team.name}.`);
      invitations.reload();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  return (
    <section aria-labelledby="invitations-title">
      <h1 id="invitations-title">Invitations</h1>
      <div class="columns">
        <div>
          <h2>Invitations for {state.profile.email}</h2>
          {joined && (
            <div class="notice" role="status">
              <p>
                You joined {joined.name}. <a href={pageUrl('team', { team: joined.id })}>Go to {joined.name}</a>.
              </p>
            </div>
          )}
          <p class="hint" aria-live="polite">
            {status}
          </p>
          <ProblemMessage problem={invitations.problem ?? problem} />
          {invitations.loading && invitations.data === undefined && <p aria-live="polite">Loading invitations…</p>}
          {invitations.data?.length === 0 && (
            <p class="empty">
              No invitations are waiting for you. When a team’s owner or admin invites {state.profile.email}, the invitation appears here to
              accept.
            </p>
          )}
          {invitations.data && invitations.data.length > 0 && (
            <ul class="cards">
              {invitations.data.map((invitation) => (
                <li key={invitation.id} class="card" aria-labelledby={`invitation-${invitation.id}`}>
                  <h3 id={`invitation-${invitation.id}`}>{invitation.team.name}</h3>
                  <dl class="facts">
                    <div>
                      <dt>Role</dt>
                      <dd>{ROLE_LABELS[invitation.role]}</dd>
                    </div>
                    <div>
                      <dt>Invited by</dt>
                      <dd>{invitation.invited_by?.name ?? 'A former member'}</dd>
                    </div>
                    <div>
                      <dt>Expires</dt>
                      <dd>{formatDate(invitation.expires_at)}</dd>
                    </div>
                  </dl>
                  <div class="invitation-actions">
                    <button
                      type="button"
                      aria-label={`Accept the invitation to ${invitation.team.name}`}
                      onClick={() => void accept(invitation)}
                    >
                      Accept
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Decline the invitation to ${invitation.team.name}`}
                      onClick={() => void decline(invitation)}
                    >
                      Decline
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>
        <NewTeamForm />
      </div>
    </section>
  );
}
