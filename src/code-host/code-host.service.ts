import { changedFields, recordAudit } from '../audit/audit-log.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { createConnectionsRepository } from '../connections/connections.repository.js';
import { inTransaction, type Db } from '../db/database.js';
import { outboxDeliveries } from '../outbox/outbox-deliveries.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { ApiError, invalidField } from '../wire/api-error.js';
import { COMMIT_STATUS, PULL_REQUEST_COMMENT } from './code-host-feedback.js';
import { createCodeHostRepository, type LinkedCodeHost } from './code-host.repository.js';
import type { CodeHost, PutCodeHostBody } from './code-host.schemas.js';
import { type CodeHostProvider, isCodeHostProvider, repositoryProblem } from './repository-names.js';

export const NO_CODE_HOST_MESSAGE = 'This project is not linked to a code host.';

const noCodeHost = () => new ApiError(404, 'Not Found', NO_CODE_HOST_MESSAGE);

function toCodeHost(row: LinkedCodeHost): CodeHost {
  return {
    connection: { id: row.connection_id, provider: row.provider as CodeHostProvider, name: row.name },
    repository: row.repository,
    commit_status: row.commit_status === 1,
    pull_request_comment: row.pull_request_comment === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** What an audit event says of a link: never more than the connection's id and the choices. */
const auditView = (row: LinkedCodeHost | undefined) =>
  row === undefined
    ? null
    : {
        connection_id: row.connection_id,
        repository: row.repository,
        commit_status: row.commit_status === 1,
        pull_request_comment: row.pull_request_comment === 1,
      };

/**
 * E10.1 and E10.4's listing. Linking and unlinking are changes to the project (owner or admin, as
 * D15's delete: the link decides what is posted in the team's name): in one transaction that checks
 * the credential again (D22), with a `project.updated` audit event naming the change.
 */
export function createCodeHostService(deps: { db: Db; clock: Clock; projects: Pick<ProjectsService, 'lockForWrite'> }) {
  const { db, clock } = deps;

  const audit = (
    trx: Db,
    actor: Parameters<typeof recordAudit>[2],
    project: { id: string; team_id: number },
    before: LinkedCodeHost | undefined,
    after: LinkedCodeHost | undefined,
  ) => {
    const details = changedFields({ code_host: auditView(before) }, { code_host: auditView(after) });
    if (Object.keys(details).length === 0) return Promise.resolve();
    return recordAudit(trx, clock, actor, {
      action: 'project.updated',
      target: { type: 'project', id: project.id },
      teamId: project.team_id,
      details,
    });
  };

  return {
    /** E10.1 GET: the project's link, or a 404 saying it has none. */
    async get(projectId: string): Promise<CodeHost> {
      const row = await createCodeHostRepository(db).find(projectId);
      if (row === undefined) throw noCodeHost();
      return toCodeHost(row);
    },

    /** E10.1 PUT: links (or links again) the project; the booleans left out are true. */
    async link(credential: WriteCredential, projectId: string, body: PutCodeHostBody): Promise<CodeHost> {
      return inTransaction(db, async (trx) => {
        const { project, actor } = await deps.projects.lockForWrite(trx, credential, projectId, 'delete');
        const connection = await createConnectionsRepository(trx).find(project.team_id, body.connection_id);
        if (connection === undefined) {
          throw invalidField('connection_id', "The selected connection id is invalid: it must be a connection of the project's team.");
        }
        if (!isCodeHostProvider(connection.provider)) {
          throw invalidField(
            'connection_id',
            `The selected connection is a ${connection.provider} connection: a code host is a github, github_app, gitlab, gitea or bitbucket connection.`,
          );
        }
        const repository = body.repository.trim();
        const problem = repositoryProblem(connection.provider, repository);
        if (problem !== null) throw invalidField('repository', problem);
        const repo = createCodeHostRepository(trx);
        const before = await repo.find(project.id);
        const at = clock.now().toISOString();
        await repo.upsert({
          project_id: project.id,
          connection_id: connection.id,
          repository,
          commit_status: body.commit_status === false ? 0 : 1,
          pull_request_comment: body.pull_request_comment === false ? 0 : 1,
          created_at: before?.created_at ?? at,
          updated_at: at,
        });
        const after = (await repo.find(project.id))!;
        await audit(trx, actor, project, before, after);
        return toCodeHost(after);
      });
    },

    /** E10.1 DELETE: nothing more is posted; calls already in the outbox are still made. */
    async unlink(credential: WriteCredential, projectId: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        const { project, actor } = await deps.projects.lockForWrite(trx, credential, projectId, 'delete');
        const repo = createCodeHostRepository(trx);
        const before = await repo.find(project.id);
        if (before === undefined || !(await repo.delete(project.id))) throw noCodeHost();
        await audit(trx, actor, project, before, undefined);
      });
    },

    /** E10.4: the calls made for the project's reports, newest first; paginated like D16. */
    async deliveries(projectId: string, page: number, path: string) {
      return outboxDeliveries(db, projectId, [COMMIT_STATUS, PULL_REQUEST_COMMENT] as const, page, path);
    },
  };
}

export type CodeHostService = ReturnType<typeof createCodeHostService>;
