import type { Db } from '../../db/database.js';
import { freshUntil, statesOfProject, toIssueState } from '../../issues/state-reads.js';
import { FINGERPRINT_LENGTH } from '../changes/fingerprint.js';
import { serializeState } from './detail-body.js';

/** E8.3: the states a report's stored answer shows (detail-body.ts), and until when they are true. */
export interface DetailStates {
  /** The serialised state of each of the report's issues someone decided about, by fingerprint. */
  texts: Map<string, string>;
  /** When the first acceptance shown expires; null: the answer stays true until a state changes. */
  freshUntil: string | null;
}

/**
 * The project's states of the issues `fingerprints` names (32 hex digits each; null: every state
 * of the project, for a report whose fingerprints are computed only as its answer is built), as of
 * `now`. The caller reads the project's states `generation` before this, so that a change made
 * meanwhile makes the stored answer out of date rather than lost; at 0 nobody ever decided about an
 * issue of the project, and there is nothing to read (an upload to such a project, the usual one,
 * costs no statement here).
 */
export async function statesForDetail(
  db: Db,
  projectId: string,
  fingerprints: string | null,
  now: string,
  generation: number,
): Promise<DetailStates> {
  if (generation === 0) return { texts: new Map(), freshUntil: null };
  const all = await statesOfProject(db, projectId);
  const shown = [];
  if (fingerprints === null) {
    shown.push(...all.values());
  } else if (all.size > 0) {
    // A project's states are few beside a report's issues: each issue is looked up among them.
    for (let at = 0; at < fingerprints.length; at += FINGERPRINT_LENGTH) {
      const row = all.get(fingerprints.slice(at, at + FINGERPRINT_LENGTH));
      if (row !== undefined) shown.push(row);
    }
  }
  return {
    texts: new Map(shown.map((row) => [row.fingerprint, serializeState(toIssueState(row.fingerprint, row, now))])),
    freshUntil: freshUntil(shown, now),
  };
}
