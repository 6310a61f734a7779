import type { components } from '../api/schema.js';

/**
 * E4's rules about who may do what in a team, as the page needs them to decide which controls to
 * offer. The service checks them again (src/teams/team-rules.ts): these only spare a person a
 * button that would answer 403.
 */
export type TeamRole = components['schemas']['Member']['role'];
export type AssignableRole = Exclude<TeamRole, 'owner'>;

export const ASSIGNABLE_ROLES: readonly { value: AssignableRole; label: string; hint: string }[] = [
  { value: 'admin', label: 'Admin', hint: 'manages members, invitations and every project' },
  { value: 'member', label: 'Member', hint: 'creates and changes projects' },
  { value: 'readonly', label: 'Read-only', hint: 'sees projects and reports' },
];

export const ROLE_LABELS: Record<TeamRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', readonly: 'Read-only' };

interface MemberRef {
  id: number;
  role: TeamRole;
}

/** Owner and admin manage the team: rename it, invite, see invitations and the team's audit log. */
export function managesTeam(role: TeamRole): boolean {
  return role === 'owner' || role === 'admin';
}

/** Only the owner transfers the team, and only to another member. */
export function canTransfer(role: TeamRole): boolean {
  return role === 'owner';
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
