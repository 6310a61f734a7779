import type { components } from '../api/schema.js';

export { canChangeRole, canDeleteTeam, canRemove, canTransfer, managesTeam } from '../../../src/teams/team-roles.js';

/**
 * E4's roles as the page shows them. Who may do what is the service's own rule (src/teams/team-roles.ts,
 * shared): the page offers only the controls that will work, and the service checks again.
 */
export type TeamRole = components['schemas']['Member']['role'];
export type AssignableRole = Exclude<TeamRole, 'owner'>;

export const ASSIGNABLE_ROLES: readonly { value: AssignableRole; label: string; hint: string }[] = [
  { value: 'admin', label: 'Admin', hint: 'manages members, invitations and every project' },
  { value: 'member', label: 'Member', hint: 'creates and changes projects' },
  { value: 'readonly', label: 'Read-only', hint: 'sees projects and reports' },
];

export const ROLE_LABELS: Record<TeamRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', readonly: 'Read-only' };
