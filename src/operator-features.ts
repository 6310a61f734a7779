import { createAccountsOverview } from './accounts/accounts.overview.js';
import { createAccountsService } from './accounts/accounts.service.js';
import type { Clock } from './clock.js';
import type { Db } from './db/database.js';
import { createSessionsService } from './sessions/sessions.service.js';
import { createTeamsRepository } from './teams/teams.repository.js';
import { createTokensService } from './tokens/tokens.service.js';

/**
 * What the operator command (cli/) works with: accounts, their overview and dashboard passwords,
 * built like createFeatures builds the service's, without loading the HTTP layer.
 */
export function operatorFeatures(db: Db, clock: Clock) {
  const tokensOn = (on: Db) => createTokensService({ db: on, clock });
  return {
    accounts: createAccountsService({ db, clock, teamsOn: createTeamsRepository, tokensOn }),
    overview: createAccountsOverview({ db, clock, teamsOn: createTeamsRepository, tokensOn }),
    sessions: createSessionsService({ db, clock }),
  };
}
