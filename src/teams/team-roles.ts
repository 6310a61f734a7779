/**
 * E4's rules about who may do what in a team, as plain predicates: no imports, so that the service
 * (team-rules.ts, which turns them into 403s) and the dashboard (web/src/lib/team-roles.ts, which
 * offers only the controls that will work) read the same rules.
 */

export const TEAM_ROLES = ['owner', 'admin', 'member', 'readonly'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** The roles that manage a team: rename it, invite, see its invitations and its audit log. */
export const TEAM_MANAGERS: readonly TeamRole[] = ['owner', 'admin'];
export const TEAM_OWNER: readonly TeamRole[] = ['owner'];

interface MemberRef {
  id: number;
  role: TeamRole;
}

export function managesTeam(role: TeamRole): boolean {
  return TEAM_MANAGERS.includes(role);
}

/** Only the owner transfers the team, and only to another member; a personal team stays its user's (D34). */
export function canTransfer(team: { role: TeamRole; personal_team: boolean }): boolean {
  return team.role === 'owner' && !team.personal_team;
}

/** The owner deletes the team, unless it is someone's personal team. */
export function canDeleteTeam(team: { role: TeamRole; personal_team: boolean }): boolean {
  return team.role === 'owner' && !team.personal_team;
}

/**
 * Changing a member's role: owner or admin; the owner's role moves only by transfer; an admin may
 * not change another admin (but may change their own).
 */
export function canChangeRole(callerRole: TeamRole, callerId: number, member: MemberRef): boolean {
  if (!managesTeam(callerRole) || member.role === 'owner') return false;
  return !(callerRole === 'admin' && member.role === 'admin' && member.id !== callerId);
}

/**
 * Removing a member, or leaving: the owner can do neither (a transfer comes first); anyone else may
 * leave; removing another takes owner or admin, and an admin may not remove another admin.
 */
export function canRemove(callerRole: TeamRole, callerId: number, member: MemberRef): boolean {
  if (member.role === 'owner') return false;
  if (member.id === callerId) return true;
  if (!managesTeam(callerRole)) return false;
  return !(callerRole === 'admin' && member.role === 'admin');
}
