import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { Team } from '../../api/types.js';
import { useAppState } from '../../app-context.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { EmailAddress } from '../../components/email-address.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { formatDate } from '../../lib/format.js';
import { ASSIGNABLE_ROLES, type AssignableRole, canChangeRole, canRemove, ROLE_LABELS } from '../../lib/team-roles.js';
import { type Member, memberName, refreshProfile } from './team-data.js';

/** The team's members with their roles: change a role, remove a member, or leave (E4's rules decide which controls show). */
export function MemberList({ team, members, onChanged }: { team: Team; members: Member[]; onChanged: () => void }) {
  return (
    <>
      <h2>Members</h2>
      <ul class="cards">
        {members.map((member) => (
          <MemberCard key={member.id} team={team} member={member} onChanged={onChanged} />
        ))}
      </ul>
    </>
  );
}

function MemberCard({ team, member, onChanged }: { team: Team; member: Member; onChanged: () => void }) {
  const state = useAppState();
  const { route } = useLocation();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [status, setStatus] = useState('');
  const me = state.profile.id;
  const isMe = member.id === me;
  const path = { team: team.id, user: member.id };

  const changeRole = async (event: SubmitEvent) => {
    event.preventDefault();
    const role = String(new FormData(event.currentTarget as HTMLFormElement).get('role')) as AssignableRole;
    setProblem(null);
    setStatus('');
    try {
      await call(api.PUT('/api/v1/teams/{team}/members/{user}', { params: { path }, body: { role } }));
      setStatus(`Role changed to ${ROLE_LABELS[role]}.`);
      onChanged();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  const remove = async () => {
    setProblem(null);
    try {
      await call(api.DELETE('/api/v1/teams/{team}/members/{user}', { params: { path } }));
      if (!isMe) return onChanged();
      // Having left, the team is no longer theirs to see: the current team may have changed too.
      await refreshProfile(state);
      route('/');
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  const labelId = `member-${member.id}-name`;
  return (
    <li class="card" aria-labelledby={labelId}>
      <h3 id={labelId}>
        {memberName(member)}
        {isMe && <span class="muted"> (you)</span>}
      </h3>
      <dl class="facts">
        <div class="fact-wide">
          <dt>Email</dt>
          <dd class="member-email">
            <EmailAddress email={member.email} />
          </dd>
        </div>
        <div>
          <dt>Role</dt>
          <dd>{ROLE_LABELS[member.role]}</dd>
        </div>
        <div>
          <dt>Joined</dt>
          <dd>{formatDate(member.joined_at)}</dd>
        </div>
      </dl>
      <ProblemMessage problem={problem} />
      <div class="member-actions">
        {canChangeRole(team.role, me, member) && (
          <form class="role-form" onSubmit={(event) => void changeRole(event)}>
            <label for={`role-${member.id}`}>Role of {memberName(member)}</label>
            {/* `selected` on the options: a select has no default value property for Preact to set. */}
            <select id={`role-${member.id}`} name="role">
              {ASSIGNABLE_ROLES.map((role) => (
                <option key={role.value} value={role.value} selected={role.value === member.role}>
                  {role.label} — {role.hint}
                </option>
              ))}
            </select>
            <button type="submit" class="secondary">
              Change role
            </button>
          </form>
        )}
        {canRemove(team.role, me, member) && (
          <ConfirmButton
            label={isMe ? 'Leave team' : 'Remove'}
            question={isMe ? `Leave ${team.name}? You lose access to its projects.` : `Remove ${memberName(member)} from ${team.name}?`}
            onConfirm={remove}
          />
        )}
      </div>
      <p class="member-status" aria-live="polite">
        {status}
      </p>
    </li>
  );
}
