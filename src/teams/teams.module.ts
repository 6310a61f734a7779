import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { OWNER_OR_ADMIN, pathId } from './team-rules.js';
import { createTeamsRepository } from './teams.repository.js';
import { teamsRoutes } from './teams.routes.js';
import { createTeamsService, type MemberInvited } from './teams.service.js';

/** E4: teams, members and invitations; and the answers other features ask of them. */
export function teamsModule(deps: { db: Db; clock: Clock; config: Config; memberInvited?: MemberInvited }) {
  const service = createTeamsService(deps);
  return {
    service,
    routes: (app: Parameters<typeof teamsRoutes>[0]) => teamsRoutes(app, { teamsService: service, config: deps.config }),
    /** The caller's role in a team, none when not a member (D15 as amended in E4). */
    roleOf: (db: Db, teamId: number, userId: number) => createTeamsRepository(db).findRole(teamId, userId),
    /** The same inside a write's transaction, the membership share-locked (D22). */
    roleInTransaction: (trx: Db, teamId: number, userId: number) => createTeamsRepository(trx).findRole(teamId, userId, { forShare: true }),
    /** The `{team}` of a URL, and the caller's owner or admin role there (E4, E5's team audit list). */
    managerCheck: {
      teamIdOf: pathId,
      requireManager: (caller: Parameters<typeof service.resolveTeam>[0], teamId: number) =>
        service.resolveTeam(caller, teamId, OWNER_OR_ADMIN),
    },
    /** The team store, for the operator's account changes (accounts/). */
    storeOn: createTeamsRepository,
  };
}
