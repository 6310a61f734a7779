import { createAccountsRepository } from './accounts/accounts.repository.js';
import { createBadgesRepository } from './badges/badges.repository.js';
import type { Db } from './db/database.js';
import { createFailuresRepository } from './failures/failures.repository.js';
import { createProjectsRepository } from './projects/projects.repository.js';
import { createExportRowsRepository } from './reports/export/export-rows.js';
import { createReportStore } from './reports/store/report-store.js';
import { createTeamsRepository } from './teams/teams.repository.js';
import { createTokensRepository } from './tokens/tokens.repository.js';
import { createAuditRepository } from './audit/audit.repository.js';
import { createWebhooksRepository } from './webhooks/webhooks.repository.js';
import { createSessionsRepository } from './sessions/sessions.repository.js';

/**
 * Every feature's repository on one connection: the database, or a transaction. Services receive
 * this function rather than building other features' repositories themselves; inside a transaction
 * they ask it for the same set bound to that transaction.
 */
export function repositoriesOn(db: Db) {
  return {
    accounts: createAccountsRepository(db),
    teams: createTeamsRepository(db),
    audit: createAuditRepository(db),
    tokens: createTokensRepository(db),
    projects: createProjectsRepository(db),
    reports: createReportStore(db),
    reportExports: createExportRowsRepository(db),
    failures: createFailuresRepository(db),
    badges: createBadgesRepository(db),
    webhooks: createWebhooksRepository(db),
    sessions: createSessionsRepository(db),
  };
}

export type Repositories = ReturnType<typeof repositoriesOn>;
export type RepositoriesOn = (db: Db) => Repositories;
