import type { FastifyRequest } from 'fastify';
import type { TeamManagerCheck } from '../audit/audit.routes.js';
import { callerOf } from '../auth/caller.js';
import { credentialOf } from '../auth/write-credential.js';
import type { App } from '../http/app-types.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { MessageResponse } from '../wire/schemas.js';
import {
  CheckResponse,
  ConnectionListResponse,
  ConnectionParams,
  ConnectionResponse,
  CreateConnectionBody,
  TeamConnectionsParams,
  UpdateConnectionBody,
} from './connections.schemas.js';
import { type ConnectionsService, noSecretKey } from './connections.service.js';

const DELETED = 'Connection deleted successfully.';
const ROLE_403 = 'the caller is a member of the team without the owner or admin role';

/**
 * E9.1 under /api/v1/teams/{team}/connections: owner or admin of the team (404 for a team the caller
 * is not in, then 403 without the role, both before the body is read: D4 steps 7 and 8); changes and
 * checks take the `admin` ability, reading the list `read`.
 */
export async function connectionsRoutes(app: App, deps: { connectionsService: ConnectionsService; teams: TeamManagerCheck }) {
  const { connectionsService: connections, teams } = deps;
  const tags = ['connections'];
  const teamIdOf = (request: FastifyRequest) => teams.teamIdOf((request.params as { team: string }).team);
  const manage = async (request: FastifyRequest) => {
    await teams.requireManager(callerOf(request), teamIdOf(request));
  };
  const idOf = (request: FastifyRequest) => (request.params as { connection: string }).connection;
  const conflict = { message: noSecretKey().message, why: 'The server has no SECRET_KEY (PostgreSQL): no credentials can be stored.' };

  app.post('/teams/:team/connections', {
    config: { ...SUBSCRIBED.admin, forbiddenWhen: [ROLE_403], conflictWhen: conflict },
    schema: {
      tags,
      summary: "Connect the team to a provider's account (owner or admin); the credentials are never shown again",
      params: TeamConnectionsParams,
      body: CreateConnectionBody,
      response: { 201: ConnectionResponse },
    },
    // The missing key is a state of the server, answered after the team's 404 and 403 and before the body's 422.
    preValidation: [manage, async () => connections.assertCanStore()],
    handler: async (request, reply) => {
      const connection = await connections.create(credentialOf(request), teamIdOf(request), request.body);
      return reply.code(201).send({ data: connection });
    },
  });

  app.get('/teams/:team/connections', {
    config: { ...SUBSCRIBED.read, forbiddenWhen: [ROLE_403] },
    schema: {
      tags,
      summary: "The team's connections, oldest first (owner or admin)",
      params: TeamConnectionsParams,
      response: { 200: ConnectionListResponse },
    },
    preValidation: manage,
    handler: async (request) => ({ data: await connections.list(teamIdOf(request)) }),
  });

  app.get('/teams/:team/connections/:connection', {
    config: { ...SUBSCRIBED.read, forbiddenWhen: [ROLE_403] },
    schema: { tags, summary: 'A connection (owner or admin)', params: ConnectionParams, response: { 200: ConnectionResponse } },
    preValidation: manage,
    handler: async (request) => ({ data: await connections.show(teamIdOf(request), idOf(request)) }),
  });

  app.put('/teams/:team/connections/:connection', {
    config: { ...SUBSCRIBED.admin, forbiddenWhen: [ROLE_403], conflictWhen: conflict },
    schema: {
      tags,
      summary: "Change a connection's name, base URL or credentials (owner or admin); credentials given replace the old ones",
      params: ConnectionParams,
      body: UpdateConnectionBody,
      response: { 200: ConnectionResponse },
    },
    preValidation: [manage, async (request) => void (await connections.show(teamIdOf(request), idOf(request)))],
    handler: async (request) => ({ data: await connections.update(credentialOf(request), teamIdOf(request), idOf(request), request.body) }),
  });

  app.delete('/teams/:team/connections/:connection', {
    config: { ...SUBSCRIBED.admin, forbiddenWhen: [ROLE_403] },
    schema: {
      tags,
      summary: 'Delete a connection (owner or admin); projects whose tracker it was are unlinked',
      params: ConnectionParams,
      response: { 200: MessageResponse },
    },
    preValidation: manage,
    handler: async (request) => {
      await connections.delete(credentialOf(request), teamIdOf(request), idOf(request));
      return { message: DELETED };
    },
  });

  app.post('/teams/:team/connections/:connection/check', {
    config: { ...SUBSCRIBED.admin, forbiddenWhen: [ROLE_403] },
    schema: {
      tags,
      summary:
        "Check a connection with one authenticated read at the provider (owner or admin); a failed read is ok: false with the provider's message",
      params: ConnectionParams,
      response: { 200: CheckResponse },
    },
    preValidation: manage,
    handler: async (request) => ({ data: await connections.check(teamIdOf(request), idOf(request)) }),
  });
}
