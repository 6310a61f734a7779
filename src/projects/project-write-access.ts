import type { AuditActor } from '../audit/audit-actor.js';
import { recheckActor } from '../audit/audit-actor.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Db } from '../db/database.js';
import type { TeamRole } from '../db/schema.js';
import { notFound } from '../wire/api-error.js';
import { mayPerform, type ProjectAction } from './permissions.js';
import type { ProjectsRepository } from './projects.repository.js';

type LockedProject = NonNullable<Awaited<ReturnType<ProjectsRepository['findForMemberInTransaction']>>>;

/**
 * D22 with D15, in a write's transaction: the caller's credential checked again, and the project as
 * they may `action` it, locked (PostgreSQL) for the rest of the transaction; else 404. Every write
 * to a project or to what it holds (reports, badges, webhooks) starts here.
 */
export async function projectForWrite(
  trx: Db,
  projects: Pick<ProjectsRepository, 'findForMemberInTransaction'>,
  credential: WriteCredential,
  projectId: string,
  action: ProjectAction,
): Promise<{ project: Omit<LockedProject, 'role'>; role: TeamRole; actor: AuditActor }> {
  const { caller, actor } = await recheckActor(credential, trx);
  const found = await projects.findForMemberInTransaction(projectId, caller.userId);
  if (!found || !mayPerform(found.role, action)) throw notFound();
  const { role, ...project } = found;
  return { project, role, actor };
}

/** `projectForWrite` with the project store chosen: what another feature's writes are given (badges, reports, webhooks). */
export type ProjectForWrite = (
  trx: Db,
  credential: WriteCredential,
  projectId: string,
  action: ProjectAction,
) => ReturnType<typeof projectForWrite>;
