import { v7 as uuidv7 } from 'uuid';
import type { Caller } from '../auth/caller.js';
import type { AuditActor } from '../audit/audit-actor.js';
import { changedFields, recordAudit, type AuditEntry } from '../audit/audit-log.js';
import { recheckActor } from '../audit/audit-actor.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { inTransaction, type Db } from '../db/database.js';
import type { TeamRole } from '../db/schema.js';
import { noTeam, notFound, roleCannotCreateProjects } from '../wire/api-error.js';
import { paginationEnvelope, pageOffset, PAGE_SIZE } from '../wire/pagination.js';
import { mayCreateProjects, permittedOr404, UUID_PATTERN, type ProjectAction } from './permissions.js';
import { type ProjectForWrite, projectForWrite } from './project-write-access.js';
import { generateProjectApiToken } from './project-api-token.js';
import type { ProjectWithLatestReport } from './projects.repository.js';
import type { CreateProjectBody, Project, UpdateProjectBody } from './projects.schemas.js';
import { DEFAULT_SETTINGS, mergeSettings, type ProjectSettings, parseStoredSettings } from './settings.js';
import { createProjectsRepository } from './projects.repository.js';

export type { ProjectAction };

export type ResolvedProject = ProjectWithLatestReport;

/** What the projects service needs of other features, given by the composer (src/features.ts). */
export interface ProjectsServiceDeps {
  db: Db;
  clock: Clock;
  /** The caller's role in a team (teams/), none when not a member; in a write's transaction, share-locked (D22). */
  teamRoleOf: (db: Db, teamId: number, userId: number) => Promise<TeamRole | undefined>;
  teamRoleInTransaction: (trx: Db, teamId: number, userId: number) => Promise<TeamRole | undefined>;
  /** A new project's badge key (badges/badge-key.ts). */
  newBadgeKey: () => string;
  /** E6: the webhook events of a change, in its transaction (webhooks/webhook-events.ts). */
  recordEvent: (
    trx: Db,
    clock: Clock,
    projectId: string,
    events: 'project.token_regenerated' | 'project.archived',
    data: Record<string, unknown>,
  ) => Promise<void>;
}

/**
 * Projects: every write runs in one transaction that first checks the caller's credential again
 * (D22) and then reads the project it changes with its row locked, so what it merges or keeps is
 * what is stored at that moment (D26), never what was read when the request arrived.
 */
export function createProjectsService(deps: ProjectsServiceDeps) {
  const { db, clock } = deps;
  const projects = createProjectsRepository(db);
  const now = () => clock.now().toISOString();

  /**
   * D22 + D15 inside a write's transaction: the project, if the caller (as the credential is now)
   * may still perform `action` on it, else 404. Its row stays locked until the transaction ends.
   */
  const lockForAction = (trx: Db, credential: WriteCredential, projectId: string, action: ProjectAction) =>
    projectForWrite(trx, createProjectsRepository(trx), credential, projectId, action);

  /** E5: the event of a change to `project`, in the change's transaction. */
  function audit(
    trx: Db,
    actor: AuditActor,
    project: { id: string; team_id: number },
    action: AuditEntry['action'],
    details: Record<string, unknown> = {},
  ) {
    return recordAudit(trx, clock, actor, { action, target: { type: 'project', id: project.id }, teamId: project.team_id, details });
  }

  /** D4 step 8 and D15 as amended in E4: the current team, if the caller's role there may create projects. */
  function requireCreatorRole(teamId: number | null, role: TeamRole | undefined): number {
    if (teamId === null || role === undefined) throw noTeam();
    if (!mayCreateProjects(role)) throw roleCannotCreateProjects();
    return teamId;
  }

  async function insertProject(trx: Db, teamId: number, input: CreateProjectBody): Promise<{ project: Project; apiToken: string }> {
    const token = generateProjectApiToken();
    const at = now();
    const row = {
      id: uuidv7(),
      team_id: teamId,
      name: input.name,
      description: input.description ?? null,
      repository_url: input.repository_url ?? null,
      framework_version: String(input.framework_version),
      settings: JSON.stringify(DEFAULT_SETTINGS),
      latest_report_id: null,
      archived_at: null,
      created_at: at,
      updated_at: at,
    };
    // E2.2: every project has a badge key from the start; it is not part of the project's shape.
    await createProjectsRepository(trx).insert({ ...row, api_token_hash: token.hash, badge_key: deps.newBadgeKey() });
    return { project: toProject({ ...row, latest_report: null }), apiToken: token.plainText };
  }

  return {
    /** D22 + D15 for another feature's write to a project's contents (reports, badges, webhooks). */
    lockForWrite: lockForAction satisfies ProjectForWrite,

    /** D4 step 7 / D11 / D15: the project, if the caller may perform `action` on it; else 404. */
    async resolveProject(caller: Caller, projectParam: string, action: ProjectAction): Promise<ResolvedProject> {
      if (!UUID_PATTERN.test(projectParam)) throw notFound();
      return permittedOr404(await projects.findForMember(projectParam.toLowerCase(), caller.userId), action);
    },

    /** D15: GET /projects lists the caller's current team only, each project as the JSON text of its answer (projects.repository.ts). */
    async listProjectsJson(caller: Caller, page: number, path: string) {
      const teamId = caller.currentTeamId;
      const total = teamId === null ? 0 : await projects.countForTeam(teamId);
      const offset = pageOffset(page);
      const items = teamId === null || offset >= total ? [] : await projects.listJsonForTeam(teamId, { limit: PAGE_SIZE, offset });
      return { data: items, ...paginationEnvelope({ path, page, total, count: items.length }) };
    },

    /** D4 step 8, before the body is validated: no current team (403), or a role that may not create (403). */
    async requireCreatorInCurrentTeam(caller: Caller): Promise<void> {
      const teamId = caller.currentTeamId;
      requireCreatorRole(teamId, teamId === null ? undefined : await deps.teamRoleOf(db, teamId, caller.userId));
    },

    /** POST /projects: in the caller's current team, as the credential and the membership are when it is written. */
    async createProject(credential: WriteCredential, input: CreateProjectBody): Promise<{ project: Project; apiToken: string }> {
      return inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        const teamId = caller.currentTeamId;
        const role = teamId === null ? undefined : await deps.teamRoleInTransaction(trx, teamId, caller.userId);
        const created = await insertProject(trx, requireCreatorRole(teamId, role), input);
        const { name, description, repository_url, framework_version } = created.project;
        await audit(trx, actor, created.project, 'project.created', { name, description, repository_url, framework_version });
        return created;
      });
    },

    /** The operator's (and the test factories') way: a project in a given team, no caller involved. */
    async createProjectInTeam(teamId: number, input: CreateProjectBody): Promise<{ project: Project; apiToken: string }> {
      return inTransaction(db, (trx) => insertProject(trx, teamId, input));
    },

    /**
     * D13: name and framework_version replace; description/repository_url: absent keeps, null clears;
     * settings merge key by key into the settings stored when the update is applied (D26).
     */
    async updateProject(credential: WriteCredential, projectId: string, input: UpdateProjectBody): Promise<Project> {
      return inTransaction(db, async (trx) => {
        const { project, actor } = await lockForAction(trx, credential, projectId, 'update');
        const settings = input.settings === undefined ? undefined : mergeSettings(parseStoredSettings(project.settings), input.settings);
        const changes = {
          name: input.name,
          framework_version: String(input.framework_version),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.repository_url !== undefined && { repository_url: input.repository_url }),
          ...(settings !== undefined && { settings: JSON.stringify(settings) }),
          updated_at: now(),
        };
        await createProjectsRepository(trx).update(project.id, changes);
        const updated = toProject({ ...project, ...changes });
        const before = toProject(project);
        const fields = ['name', 'description', 'repository_url', 'framework_version', 'settings'] as const;
        const details = changedFields(pick(before, fields), pick(updated, fields));
        // A PUT that changes nothing is not a change worth an event.
        if (Object.keys(details).length > 0) await audit(trx, actor, project, 'project.updated', details);
        return updated;
      });
    },

    /**
     * E9.3: links the project's tracker (a connection of its team, which `pick` finds in the
     * transaction and checks: else it throws) and sets D14's `primary_tracker` to its provider; null
     * unlinks it and leaves the settings as they are. Answers the settings as stored.
     */
    async linkTracker(
      credential: WriteCredential,
      projectId: string,
      pick: (trx: Db, project: { team_id: number; settings: ProjectSettings }) => Promise<{ id: string; provider: string } | null>,
    ): Promise<ProjectSettings> {
      return inTransaction(db, async (trx) => {
        const { project, actor } = await lockForAction(trx, credential, projectId, 'update');
        const current = parseStoredSettings(project.settings);
        const connection = await pick(trx, { team_id: project.team_id, settings: current });
        const settings =
          connection === null
            ? current
            : mergeSettings(current, { primary_tracker: connection.provider as ProjectSettings['primary_tracker'] });
        const before = await createProjectsRepository(trx).trackerConnectionOf(project.id);
        const after = connection?.id ?? null;
        await createProjectsRepository(trx).update(project.id, {
          tracker_connection_id: after,
          settings: JSON.stringify(settings),
          updated_at: now(),
        });
        const details = {
          ...(before !== after && { tracker_connection_id: { old: before, new: after } }),
          ...changedFields({ settings: current }, { settings }),
        };
        if (Object.keys(details).length > 0) await audit(trx, actor, project, 'project.updated', details);
        return settings;
      });
    },

    /** The project, its reports and its failed runs go together, or not at all (the database's cascades). */
    async deleteProject(credential: WriteCredential, projectId: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        const { project, actor } = await lockForAction(trx, credential, projectId, 'delete');
        await createProjectsRepository(trx).delete(project);
        await audit(trx, actor, project, 'project.deleted', { name: project.name });
      });
    },

    /** D10: one write replaces the hash, so the old token stops working at once. */
    async regenerateApiToken(credential: WriteCredential, projectId: string): Promise<string> {
      const token = generateProjectApiToken();
      await inTransaction(db, async (trx) => {
        const { project, actor } = await lockForAction(trx, credential, projectId, 'update');
        await createProjectsRepository(trx).update(project.id, { api_token_hash: token.hash, updated_at: now() });
        // Never the token (E5): the event says only that it changed.
        await audit(trx, actor, project, 'project.token_regenerated');
        await deps.recordEvent(trx, deps.clock, project.id, 'project.token_regenerated', {});
      });
      return token.plainText;
    },

    /** D17: archiving keeps the first archive time (the one stored, read under the lock); unarchiving clears it. */
    async setArchived(credential: WriteCredential, projectId: string, archived: boolean): Promise<Project> {
      return inTransaction(db, async (trx) => {
        const { project, actor } = await lockForAction(trx, credential, projectId, 'update');
        const archived_at = archived ? (project.archived_at ?? now()) : null;
        // Archiving an archived project changes nothing, and writes no event.
        if (archived_at !== project.archived_at) {
          await createProjectsRepository(trx).update(project.id, { archived_at, updated_at: now() });
          await audit(trx, actor, project, archived ? 'project.archived' : 'project.unarchived');
          if (archived) await deps.recordEvent(trx, deps.clock, project.id, 'project.archived', {});
        }
        return toProject({ ...project, archived_at });
      });
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, from[key]]));
}

export function toProject(row: ProjectWithLatestReport): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    repository_url: row.repository_url,
    framework_version: row.framework_version,
    team_id: row.team_id,
    archived_at: row.archived_at,
    created_at: row.created_at,
    latest_report: row.latest_report,
    settings: parseStoredSettings(row.settings),
  };
}

/** What a feature holding a project's contents (badges, reports, webhooks) is built from. */
export interface ProjectContentsDeps {
  db: Db;
  clock: Clock;
  config: Config;
  projects: Pick<ProjectsService, 'resolveProject' | 'lockForWrite'>;
}
