import type { Answer } from './load.js';
import type { Delivery } from './world.js';

/** What a scenario saw, for its line and its checks. */
export interface Observed {
  uploads: Answer[];
  probes: Answer[];
  /** Uuids of the reports in the database at the end. */
  stored: Set<string>;
  /** Deliveries in the database at the end (what the receiver should have seen, once each). */
  deliveries: Delivery[];
  seen: Map<string, number>;
  /** When the fault began and ended (ms on the scenario's clock), if it has those. */
  faultFrom?: number;
  restoredAt?: number;
  /** Instances that are still serving at the end (recovery is measured on them). */
  live: string[];
  /** Error and warning lines each instance logged during the scenario. */
  logs: Record<string, { error: number; warn: number; info: number }>;
}

export const ok2xx = (answer: Answer) => answer.status !== null && answer.status >= 200 && answer.status < 300;
const honest503 = (answer: Answer) => answer.status === 503 && answer.enveloped && answer.retryAfter;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The counts every scenario prints. */
export function counts(observed: Observed) {
  const { uploads, probes, stored, deliveries, seen } = observed;
  const acknowledged = uploads.filter(ok2xx);
  const ackUuids = new Set(acknowledged.map((answer) => answer.uuid).filter((uuid): uuid is string => uuid !== null));
  const noAnswer = uploads.filter((answer) => answer.status === null);
  const errors = new Map<string, number>();
  for (const answer of noAnswer) errors.set(answer.error!, (errors.get(answer.error!) ?? 0) + 1);
  const expected = new Set(deliveries.map((delivery) => delivery.id));
  return {
    sent: uploads.length,
    acknowledged: acknowledged.length,
    honest503: uploads.filter(honest503).length,
    /** Answers that are neither 2xx nor an enveloped 503 with Retry-After. */
    otherAnswers: uploads.filter((answer) => answer.status !== null && !ok2xx(answer) && !honest503(answer)),
    noAnswer,
    errors,
    lost: [...ackUuids].filter((uuid) => !stored.has(uuid)),
    /** Stored reports no 2xx answer told of (answers lost on the way: a client would send them again). */
    unacknowledgedStored: [...stored].filter((uuid) => !ackUuids.has(uuid)).length,
    stored: stored.size,
    expectedDeliveries: expected.size,
    delivered: [...expected].filter((id) => seen.has(id)).length,
    pending: deliveries.filter((delivery) => delivery.status === 'pending').length,
    duplicates: [...seen.values()].filter((times) => times > 1).length,
    longestWait: Math.max(0, ...uploads.map((answer) => answer.endedAt - answer.sentAt)),
    slowestReadyz: Math.max(0, ...probes.map((answer) => answer.endedAt - answer.sentAt)),
    unansweredReadyz: probes.filter((answer) => answer.status === null).length,
  };
}

/** Per live instance: ms from the restore to the end of its first 2xx upload and first 200 `/readyz` (null: never). */
export function recovery(observed: Observed): Record<string, { upload: number | null; readyz: number | null }> {
  const restoredAt = observed.restoredAt;
  const result: Record<string, { upload: number | null; readyz: number | null }> = {};
  if (restoredAt === undefined) return result;
  const first = (answers: Answer[], instance: string, good: (answer: Answer) => boolean) => {
    const after = answers.filter((answer) => answer.instance === instance && answer.endedAt >= restoredAt && good(answer));
    return after.length === 0 ? null : Math.min(...after.map((answer) => answer.endedAt)) - restoredAt;
  };
  for (const instance of observed.live) {
    result[instance] = {
      upload: first(observed.uploads, instance, ok2xx),
      readyz: first(observed.probes, instance, (answer) => answer.status === 200),
    };
  }
  return result;
}

/** One expectation of a scenario and whether it held. */
export interface Check {
  name: string;
  held: boolean;
  /** What was seen, when it did not hold. */
  detail?: string;
  /**
   * A bound on time (an answer within N s, serving again within N s): a busy machine can miss it
   * for want of CPU alone, so a scenario that failed on such checks only may be run once more
   * (`--once-more`). Never set on what a slow machine cannot excuse: a lost upload, a wrong answer.
   */
  timing?: true;
}

export const check = (name: string, held: boolean, detail?: string): Check => (held ? { name, held } : { name, held, detail });
/** A check whose bound is time (see `Check.timing`). */
export const timingCheck = (name: string, held: boolean, detail?: string): Check => ({ ...check(name, held, detail), timing: true });

/** The scenario's line: its counts, then PASS or FAIL; the expectations that failed follow, indented. */
export function report(name: string, observed: Observed, checks: Check[], extra: string[] = []): Outcome {
  const c = counts(observed);
  const failed = checks.filter((item) => !item.held);
  const errors = [...c.errors].map(([error, count]) => `${error} ${count}`).join(', ');
  const recovered = Object.entries(recovery(observed))
    .map(
      ([instance, r]) =>
        `${instance} 2xx ${r.upload === null ? 'never' : seconds(r.upload)}/readyz ${r.readyz === null ? 'never' : seconds(r.readyz)}`,
    )
    .join(', ');
  const logs = Object.entries(observed.logs)
    .map(([instance, l]) => `${instance} ${l.error} err ${l.warn} warn`)
    .join(', ');
  const parts = [
    `uploads ${c.sent}: 2xx ${c.acknowledged}, 503+Retry-After ${c.honest503}, other ${c.otherAnswers.length}, no answer ${c.noAnswer.length}${errors ? ` (${errors})` : ''}`,
    `longest ${seconds(c.longestWait)}`,
    `stored ${c.stored}: acknowledged lost ${c.lost.length}, stored unacknowledged ${c.unacknowledgedStored}`,
    `webhooks ${c.delivered}/${c.expectedDeliveries} delivered, ${c.pending} pending, ${c.duplicates} ids seen twice`,
    `readyz slowest ${seconds(c.slowestReadyz)}, unanswered ${c.unansweredReadyz}`,
    ...(recovered ? [`recovery ${recovered}`] : []),
    ...extra,
    `logs ${logs}`,
  ];
  const lines = [`${name.padEnd(11)} ${failed.length === 0 ? 'PASS' : 'FAIL'}  ${parts.join(' | ')}`];
  const pending = observed.deliveries.filter((delivery) => delivery.status === 'pending');
  if (pending.length > 0) lines.push(`            pending deliveries: ${describePending(pending)}`);
  for (const item of failed) lines.push(`            ✗ ${item.name}${item.detail ? `: ${item.detail}` : ''}`);
  return { lines, passed: failed.length === 0, timingOnly: failed.length > 0 && failed.every((item) => item.timing) };
}

/** A scenario's result: its lines, and whether it passed or failed on bounds of time alone. */
export interface Outcome {
  lines: string[];
  passed: boolean;
  timingOnly?: boolean;
}

/** Describes a few answers (status or error, instance, duration), for a failed check's detail. */
export function sample(answers: Answer[], max = 3): string {
  const shown = answers
    .slice(0, max)
    .map(
      (answer) =>
        `${answer.instance}: ${answer.status ?? answer.error}${answer.status !== null ? `${answer.enveloped ? ' enveloped' : ' not enveloped'}${answer.retryAfter ? ', Retry-After' : ', no Retry-After'}` : ''} after ${seconds(answer.endedAt - answer.sentAt)}`,
    );
  return `${answers.length}, e.g. ${shown.join('; ')}`;
}

/**
 * The checks of an outage of the database link (black hole, slow, crash), with generous margins
 * for a busy machine, each said here: answers within 10 s (+2 s) unless the scenario says otherwise
 * (`longestWaitMs`), `/readyz` within 2 s (+0.5 s), serving again within 5 s of the restore (+0.5 s:
 * the load and the probes ask every 250 ms).
 */
export function outageChecks(observed: Observed, longestWaitMs = 12_000): Check[] {
  const c = counts(observed);
  const late = Object.entries(recovery(observed)).filter(
    ([, r]) => r.upload === null || r.upload > 5_500 || r.readyz === null || r.readyz > 5_500,
  );
  return [
    check('no request answered by a reset or left unanswered', c.noAnswer.length === 0, sample(c.noAnswer)),
    check('every answer that is not 2xx is an enveloped 503 with Retry-After', c.otherAnswers.length === 0, sample(c.otherAnswers)),
    timingCheck(
      `every upload answered within ${seconds(longestWaitMs)}`,
      c.longestWait <= longestWaitMs,
      `longest ${seconds(c.longestWait)}`,
    ),
    timingCheck(
      '/readyz answered within 2.5 s',
      c.slowestReadyz <= 2_500 && c.unansweredReadyz === 0,
      `slowest ${seconds(c.slowestReadyz)}, ${c.unansweredReadyz} unanswered`,
    ),
    timingCheck(
      'each instance serves 2xx and /readyz 200 within 5.5 s of the restore',
      late.length === 0,
      late.map(([instance, r]) => `${instance}: 2xx ${r.upload ?? 'never'} ms, readyz ${r.readyz ?? 'never'} ms`).join('; '),
    ),
    ...storageChecks(observed),
  ];
}

/** Nothing acknowledged is lost (every scenario). */
export function storageChecks(observed: Observed): Check[] {
  const c = counts(observed);
  return [
    check('every acknowledged upload is stored', c.lost.length === 0, `${c.lost.length} missing, e.g. ${c.lost.slice(0, 2).join(', ')}`),
  ];
}

/**
 * Every delivery in the database reached the receiver, none of them twice, none left pending at the
 * end (a pending delivery is attempted again later: its receiver would see it twice).
 */
export function deliveryChecks(observed: Observed, options: { duplicatesAllowed?: boolean } = {}): Check[] {
  const c = counts(observed);
  return [
    check(
      'every expected delivery reached the receiver',
      c.delivered === c.expectedDeliveries,
      `${c.delivered} of ${c.expectedDeliveries}`,
    ),
    check('no delivery left pending', c.pending === 0, `${c.pending} pending`),
    ...(options.duplicatesAllowed ? [] : [check('no delivery id seen twice', c.duplicates === 0, `${c.duplicates} ids`)]),
  ];
}

/** Pending deliveries grouped by what their last attempt left: attempts made, answer or error, still claimed. */
function describePending(pending: Delivery[]): string {
  const groups = new Map<string, number>();
  const now = new Date().toISOString();
  for (const delivery of pending) {
    const last = delivery.response_status ?? (delivery.error ? delivery.error.slice(0, 60) : 'none');
    const claimed = delivery.claimed_until !== null && delivery.claimed_until > now ? ', claimed' : '';
    const key = `${delivery.attempts} attempts, last ${last}${claimed}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups].map(([key, count]) => `${count} × ${key}`).join('; ');
}
