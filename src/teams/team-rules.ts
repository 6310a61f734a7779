import { isRowId } from '../db/dialect.js';
import type { TeamRole } from '../db/schema.js';
import { ApiError, invalidField, notFound } from '../wire/api-error.js';
import { canChangeRole, canRemove, TEAM_MANAGERS, TEAM_OWNER } from './team-roles.js';
import type { MemberRow, TeamView } from './teams.repository.js';

/**
 * E4's rules about who may do what in a team, as checks that throw the answer. Each is run twice:
 * before the body is validated (so a 404 or 403 answers before a 422, D4), and again inside the
 * write's transaction with the team locked, where what they read is what the write will change.
 */

const forbidden = (message: string) => new ApiError(403, 'Forbidden', message);

export const OWNER_OR_ADMIN: readonly TeamRole[] = TEAM_MANAGERS;
export const OWNER_ONLY: readonly TeamRole[] = TEAM_OWNER;

/** E4: a member without the needed role gets 403 naming what is missing (a member may see the team). */
export function requireRole(team: TeamView, allowed: readonly TeamRole[]): void {
  if (allowed.includes(team.role)) return;
  throw forbidden(
    allowed.length === 1
      ? 'This action requires the owner role in this team.'
      : 'This action requires the owner or admin role in this team.',
  );
}

/** E4: creating a team needs a Business or Enterprise plan (D4 step 8). */
export function requireTeamPlan(plan: string | null): void {
  if (plan === 'business' || plan === 'enterprise') return;
  throw forbidden('Creating a team requires a Business or Enterprise plan.');
}

export function requireDeletable(team: TeamView): void {
  if (team.personal_team) throw forbidden('A personal team cannot be deleted.');
}

/**
 * D34: a personal team stays its user's. Handing one over let its new owner's deletion leave a team
 * without an owner, and the user without the team they fall back to (E4).
 */
export function requireTransferable(team: TeamView): void {
  if (team.personal_team) throw forbidden('A personal team cannot be transferred.');
}

const ADMIN_OVER_ADMIN = 'An admin may not change or remove the owner or another admin.';

/** E4: an admin may not change or remove the owner or another admin; the owner's role moves only by transfer. */
export function requireRoleChangeAllowed(team: TeamView, callerId: number, member: MemberRow): void {
  requireRole(team, OWNER_OR_ADMIN);
  if (canChangeRole(team.role, callerId, member)) return;
  throw forbidden(
    member.role === 'owner' && team.role === 'owner' ? 'The owner role changes only by transferring the team.' : ADMIN_OVER_ADMIN,
  );
}

/** E4: the owner cannot leave or be removed; anyone else may leave; removing others takes owner or admin. */
export function requireRemovalAllowed(team: TeamView, callerId: number, member: MemberRow): void {
  if (member.role === 'owner') throw forbidden('The team owner cannot leave or be removed. Transfer the team first.');
  if (member.id !== callerId) requireRole(team, OWNER_OR_ADMIN);
  if (!canRemove(team.role, callerId, member)) throw forbidden(ADMIN_OVER_ADMIN);
}

/** D4 step 7: a member of the team, else 404. */
export function requireMember(member: MemberRow | undefined): MemberRow {
  if (!member) throw notFound();
  return member;
}

/** E4: the new owner is another member of the team (a 422: the body names them). */
export function requireTransferTarget(callerId: number, target: MemberRow | undefined): MemberRow {
  if (!target || target.id === callerId) throw invalidField('user_id', 'The user id must be another member of the team.');
  return target;
}

/** E4: an email that is already a member cannot be invited (422). */
export function alreadyMember(): ApiError {
  return invalidField('email', 'This user is already a member of the team.');
}

/** E4: `{team}`, `{user}` and `{id}` are positive integers; anything else names nothing (404). */
export function pathId(param: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(param)) throw notFound();
  const id = Number(param);
  if (!isRowId(id)) throw notFound();
  return id;
}
