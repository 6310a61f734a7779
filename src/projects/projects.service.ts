import { v7 as uuidv7 } from 'uuid';
import type { Caller } from '../auth/caller.js';
import type { Clock } from '../clock.js';
import { createAccountsRepository } from '../accounts/accounts.repository.js';
import type { Db } from '../db/database.js';
import { createFailuresRepository } from '../failures/failures.repository.js';
import { noTeam, notFound } from '../http/api-error.js';
import { createReportsRepository } from '../reports/reports.repository.js';
import { paginationEnvelope, pageOffset, PAGE_SIZE } from '../http/pagination.js';
import { mayPerform, UUID_PATTERN, type ProjectAction } from './permissions.js';
import { generateProjectApiToken } from './project-api-token.js';
import { createProjectsRepository, type ProjectWithLatestReport } from './projects.repository.js';
import type { CreateProjectBody, Project, UpdateProjectBody } from './projects.schemas.js';
import { DEFAULT_SETTINGS, mergeSettings, parseStoredSettings } from './settings.js';

export type { ProjectAction };

export type ResolvedProject = ProjectWithLatestReport;

export function createProjectsService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const projects = createProjectsRepository(db);
  const accounts = createAccountsRepository(db);
  const now = () => clock.now().toISOString();

  return {
    /** D4 step 7 / D11 / D15: the project, if the caller may perform `action` on it; else 404. */
    async resolveProject(caller: Caller, projectParam: string, action: ProjectAction): Promise<ResolvedProject> {
      if (!UUID_PATTERN.test(projectParam)) throw notFound();
      const found = await projects.findForMember(projectParam.toLowerCase(), caller.userId);
      if (!found || !mayPerform(found.role, action)) throw notFound();
      const { role: _role, ...project } = found;
      return project;
    },

    /** D15: GET /projects lists the caller's current team only. */
    async listProjects(caller: Caller, page: number, path: string) {
      const teamId = caller.currentTeamId;
      const total = teamId === null ? 0 : await projects.countForTeam(teamId);
      const offset = pageOffset(page);
      // D16: a page past the end is empty; it is not queried (its offset may not even fit in SQL).
      const rows = teamId === null || offset >= total ? [] : await projects.listForTeam(teamId, { limit: PAGE_SIZE, offset });
      return { data: rows.map(toProject), ...paginationEnvelope({ path, page, total, count: rows.length }) };
    },

    /** D4 step 8: a user without a current team (of which they are a member) cannot create projects. */
    async requireCurrentTeam(caller: Caller): Promise<number> {
      const teamId = caller.currentTeamId;
      if (teamId === null || !(await accounts.findRole(teamId, caller.userId))) throw noTeam();
      return teamId;
    },

    async createProject(teamId: number, input: CreateProjectBody): Promise<{ project: Project; apiToken: string }> {
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
      await db.transaction().execute(async (trx) => createProjectsRepository(trx).insert({ ...row, api_token_hash: token.hash }));
      return { project: toProject({ ...row, latest_report: null }), apiToken: token.plainText };
    },

    /** D13: name and framework_version replace; description/repository_url: absent keeps, null clears. */
    async updateProject(project: ResolvedProject, input: UpdateProjectBody): Promise<Project> {
      const settings =
        input.settings === undefined ? undefined : mergeSettings(parseStoredSettings(project.settings), input.settings);
      const changes = {
        name: input.name,
        framework_version: String(input.framework_version),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.repository_url !== undefined && { repository_url: input.repository_url }),
        ...(settings !== undefined && { settings: JSON.stringify(settings) }),
        updated_at: now(),
      };
      await projects.update(project.id, changes);
      return toProject({ ...project, ...changes });
    },

    /** The project, its reports and its failed runs go together, or not at all. */
    async deleteProject(project: ResolvedProject): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await createReportsRepository(trx).deleteForProject(project.id);
        await createFailuresRepository(trx).deleteForProject(project.id);
        await createProjectsRepository(trx).delete(project);
      });
    },

    /** D10: one write replaces the hash, so the old token stops working at once. */
    async regenerateApiToken(project: ResolvedProject): Promise<string> {
      const token = generateProjectApiToken();
      await projects.update(project.id, { api_token_hash: token.hash, updated_at: now() });
      return token.plainText;
    },

    /** D17: archiving keeps the first archive time; unarchiving clears it. */
    async setArchived(project: ResolvedProject, archived: boolean): Promise<Project> {
      const archived_at = archived ? (project.archived_at ?? now()) : null;
      if (archived_at !== project.archived_at) await projects.update(project.id, { archived_at, updated_at: now() });
      return toProject({ ...project, archived_at });
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

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
