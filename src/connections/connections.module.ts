import type { TeamManagerCheck } from '../audit/audit.routes.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { TeamRole } from '../db/schema.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { openConnection, markConnectionUsed } from './connections.repository.js';
import { connectionsRoutes } from './connections.routes.js';
import { createConnectionsService } from './connections.service.js';
import type { ProviderHttp } from './provider-http.js';

/** E9.1: a team's connections to its providers, and what other features (tickets) use of them. */
export function connectionsModule(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  secrets: SecretBox;
  providerHttp: ProviderHttp;
  teams: TeamManagerCheck;
  teamRoleInTransaction(trx: Db, teamId: number, userId: number): Promise<TeamRole | undefined>;
}) {
  const service = createConnectionsService({ ...deps, allowPrivateNetworks: deps.config.webhookAllowPrivateNetworks });
  return {
    service,
    routes: (app: Parameters<typeof connectionsRoutes>[0]) => connectionsRoutes(app, { connectionsService: service, teams: deps.teams }),
    /** A team's connection with its credentials opened, or null (tickets/). */
    open: (db: Db, teamId: number, id: string) => openConnection(db, deps.secrets, teamId, id),
    /** Records a call made with a connection (its `last_used_at`). */
    markUsed: (db: Db, id: string) => markConnectionUsed(db, id, deps.clock.now().toISOString()),
    /** Every call to a provider goes through it. */
    providerHttp: deps.providerHttp,
  };
}
