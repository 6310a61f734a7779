import { recordAudit } from '../audit/audit-log.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { notFound } from '../wire/api-error.js';
import type { ProjectForWrite } from '../projects/project-write-access.js';
import type { StoredGate } from '../reports/reports.schemas.js';
import { gateBadge, scoreBadge, toShieldsEndpoint } from './badge-content.js';
import { generateBadgeKey, isWellFormedBadgeKey } from './badge-key.js';
import { renderBadgeSvg } from './badge-svg.js';
import { createBadgesRepository } from './badges.repository.js';

/** The public badges of a project (E2.3), by their file name under `/badges/{key}/`. */
export const BADGE_FILES = ['score.svg', 'gate.svg', 'score.json'] as const;
export type BadgeFile = (typeof BADGE_FILES)[number];

const CONTENT_TYPES: Record<BadgeFile, string> = {
  'score.svg': 'image/svg+xml; charset=utf-8',
  'gate.svg': 'image/svg+xml; charset=utf-8',
  'score.json': 'application/json; charset=utf-8',
};

/** A badge ready to send: its bytes are what its ETag is computed from. */
export interface RenderedBadge {
  body: string;
  contentType: string;
}

/**
 * Badges (E2.2, E2.3): a project's badge key, its regeneration, and the public badges it opens.
 * The key is read from the database on every badge request, never cached, so a regenerated key
 * stops working at once on every instance.
 */
export function createBadgesService(deps: { db: Db; clock: Clock; projectForWrite: ProjectForWrite }) {
  const { db, clock } = deps;
  const badges = createBadgesRepository(db);

  return {
    /** The project's badge key (the project was resolved for the caller, D15); 404 if it was deleted meanwhile. */
    async keyOf(projectId: string): Promise<string> {
      const key = await badges.keyOf(projectId);
      if (key === undefined) throw notFound();
      return key;
    },

    /**
     * E2.2: a new key in one write, so the old URLs answer 404 from the moment it commits. D22: the
     * caller's credential and role (D15's update permission) are checked again in the transaction.
     */
    async regenerateKey(credential: WriteCredential, projectId: string): Promise<string> {
      const key = generateBadgeKey();
      await inTransaction(db, async (trx) => {
        const { project, actor } = await deps.projectForWrite(trx, credential, projectId, 'update');
        await createBadgesRepository(trx).replaceKey(project.id, key, clock.now().toISOString());
        // Never the key (E5): the old URLs stop working, the event says only that it happened.
        await recordAudit(trx, clock, actor, {
          action: 'project.badge_regenerated',
          target: { type: 'project', id: project.id },
          teamId: project.team_id,
        });
      });
      return key;
    },

    /**
     * E2.3: the badge `file` of the project with this key, from its latest report (D19), archived
     * or not; 404 for a key no project has. A malformed key is refused without a database lookup.
     */
    async render(key: string, file: BadgeFile): Promise<RenderedBadge> {
      if (!isWellFormedBadgeKey(key)) throw notFound();
      const data = await badges.findByKey(key);
      if (data === undefined) throw notFound();
      const contentType = CONTENT_TYPES[file];
      switch (file) {
        case 'score.svg':
          return { body: renderBadgeSvg(scoreBadge(data.score)), contentType };
        case 'gate.svg': {
          // E1.8: a report stored before gates were recorded has none, and says so.
          const passed = data.gate === null ? null : (JSON.parse(data.gate) as StoredGate).passed;
          return { body: renderBadgeSvg(gateBadge(passed)), contentType };
        }
        case 'score.json':
          return { body: JSON.stringify(toShieldsEndpoint(scoreBadge(data.score))), contentType };
      }
    },
  };
}

export type BadgesService = ReturnType<typeof createBadgesService>;
