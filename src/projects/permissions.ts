import type { TeamRole } from '../db/schema.js';
import { notFound } from '../wire/api-error.js';

export type ProjectAction = 'view' | 'update' | 'delete';

/**
 * D15: which team roles may do what to a project and to what it holds (its reports and failed
 * runs); anyone else gets a 404, as if it did not exist.
 */
const ROLES_FOR: Record<ProjectAction, readonly TeamRole[]> = {
  view: ['owner', 'admin', 'member', 'readonly'],
  update: ['owner', 'admin', 'member'],
  delete: ['owner', 'admin'],
};

export function mayPerform(role: TeamRole, action: ProjectAction): boolean {
  return ROLES_FOR[action].includes(role);
}

/**
 * D4 step 7 / D15: what the caller's membership found (a project, or something a project holds),
 * without the role, if that role may perform `action` on it; else 404.
 */
export function permittedOr404<T extends { role: TeamRole }>(found: T | undefined, action: ProjectAction): Omit<T, 'role'> {
  if (!found || !mayPerform(found.role, action)) throw notFound();
  const { role: _role, ...rest } = found;
  return rest;
}

/** D15 as amended in E4: creating a project in a team takes the same roles as updating one. */
export function mayCreateProjects(role: TeamRole): boolean {
  return ROLES_FOR.update.includes(role);
}

/** D11: ids in URLs are UUIDs; anything else names nothing (404). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
