import { useRoute } from 'preact-iso';
import { api, call } from '../api/client.js';
import { ProblemMessage } from '../components/problem-message.js';
import { canDeleteTeam, canTransfer, managesTeam, ROLE_LABELS } from '../lib/team-roles.js';
import { useApi, usePageTitle } from '../lib/use-api.js';
import { MemberList } from './team/member-list.js';
import { TeamConnections } from './team/team-connections.js';
import { RenameTeamForm, TeamDangerZone } from './team/team-settings.js';
import { TeamInvitations } from './team/team-invitations.js';

/** E7 team: the team's name, its members and their roles, pending invitations, invite, connections (E9.6), transfer and delete (E4). */
export function TeamPage() {
  const teamId = useRoute().params.team ?? '';
  const team = useApi(async () => call(api.GET('/api/v1/teams/{team}', { params: { path: { team: Number(teamId) } } })), [teamId]);
  usePageTitle(team.data?.data.name ?? 'Team');

  if (team.data === undefined) {
    return (
      <section aria-labelledby="team-title">
        <h1 id="team-title">Team</h1>
        <ProblemMessage problem={team.problem} />
        {team.loading && <p aria-live="polite">Loading the team…</p>}
      </section>
    );
  }
  const { data, members } = team.data;
  return (
    <section aria-labelledby="team-title">
      <div class="page-heading">
        <h1 id="team-title">{data.name}</h1>
        {data.personal_team && <span class="tag">Personal team</span>}
      </div>
      <p class="hint">
        Your role: {ROLE_LABELS[data.role]}. {data.member_count === 1 ? '1 member' : `${data.member_count} members`},{' '}
        {data.project_count === 1 ? '1 project' : `${data.project_count} projects`}.
      </p>
      <ProblemMessage problem={team.problem} />
      <div class="columns">
        <div>
          <MemberList team={data} members={members} onChanged={team.reload} />
        </div>
        <div>
          {managesTeam(data.role) && <TeamInvitations teamId={data.id} />}
          {managesTeam(data.role) && <TeamConnections teamId={data.id} />}
          {managesTeam(data.role) && <RenameTeamForm team={data} onRenamed={team.reload} />}
          {(canTransfer(data) || canDeleteTeam(data)) && <TeamDangerZone team={data} members={members} onTransferred={team.reload} />}
        </div>
      </div>
    </section>
  );
}
