import { randomAlphanumeric } from '../auth/random-string.js';
import { hashToken } from '../auth/token-hash.js';
import type { Db } from '../db/database.js';
import { projectArchived, unauthenticated } from '../wire/api-error.js';
import type { ProjectsRepository, ProjectWithLatestReport } from './projects.repository.js';

/** D10: 40 characters from [A-Za-z0-9], no prefix; only its SHA-256 is stored. */
export function generateProjectApiToken(): { plainText: string; hash: string } {
  const plainText = randomAlphanumeric(40);
  return { plainText, hash: hashToken(plainText) };
}

/** D10's shape; a bearer value without it is dismissed before any database lookup. */
export function isWellFormedProjectApiToken(value: string): boolean {
  return /^[A-Za-z0-9]{40}$/.test(value);
}

/**
 * D22 for the client package: what an upload relies on, checked again inside its transaction. The
 * project is found again by the token's hash (its row locked on PostgreSQL), so a rotation or a
 * deletion that committed first answers 401 and an archive 409, and a later one waits for the upload.
 */
export interface ProjectTokenCredential {
  /** The project as it is now; its settings are the ones the upload's gate applies. */
  recheck(trx: Db): Promise<ProjectWithLatestReport>;
}

/** Where the project is read again: the projects repository on the upload's transaction. */
export type ProjectsOn = (trx: Db) => Pick<ProjectsRepository, 'findByApiTokenHashInTransaction'>;

export function projectTokenCredential(tokenHash: string, projectsOn: ProjectsOn): ProjectTokenCredential {
  return {
    async recheck(trx) {
      const project = await projectsOn(trx).findByApiTokenHashInTransaction(tokenHash);
      if (!project) throw unauthenticated();
      if (project.archived_at !== null) throw projectArchived();
      return project;
    },
  };
}
