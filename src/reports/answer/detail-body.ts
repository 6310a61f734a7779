import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { serializerCompiler } from '../../wire/serialization.js';
import { CHANGE_CODES, fingerprintResults, type IssueMark } from '../changes/issue-changes.js';
import { detailHead, detailResults, suppressedCounts, type SuppressedCounts } from './detail-shape.js';
import type { StoredResult } from '../results/stored-result.js';
import { decodeResults } from '../results/results-encoding.js';
import type { ReportRow } from '../store/report-rows.js';
import { ReportDetailResponse, ReportResultTemplate } from '../reports.schemas.js';
import { FINGERPRINT_LENGTH } from '../changes/fingerprint.js';
import { IssueState } from '../../issues/issue-state.schemas.js';
import { openState } from '../../issues/state-reads.js';

/**
 * D28: `GET /api/v1/reports/{report}`'s answer, built once and kept gzip-compressed
 * (`report_bodies`), so that a read costs neither serialisation nor memory in proportion to the
 * report. The text is the route's own serialiser's (Fastify's, from the response schema), so it is
 * byte for byte what the route would have sent.
 *
 * Built in two steps (`detailTemplate`, then `assembleDetailBody`): the results, the bulk of the
 * answer, are serialised with a placeholder for each issue's change and state (E8.3); then each
 * placeholder is replaced by the change and the state, and the head (the row's fields) put in front.
 * At upload the template is made where the upload is prepared, while its results are at hand, and
 * the changes are known only after its transaction; a stored report's (`buildDetailBody`) is made
 * from its results decoded and its marks read back.
 *
 * An issue's state is its project's state for its fingerprint as of the build: `states` holds the
 * serialised state of those someone decided about; every other issue is open, written from one
 * shared text with its fingerprint in the middle (most issues: no state object per issue).
 */
export interface DetailSource {
  /** The report's row with its baseline's columns. */
  row: ReportRow;
  /** Its results as stored: the JSON of reports from before migration 0006, else its compressed bytes. */
  results: { text: string; compressed: Uint8Array | null };
  /** The fingerprint and change of each issue in upload order, compact (null: not fingerprinted yet). */
  marks: CompactMarks | null;
  /** E8.3: the states someone decided about, serialised, by fingerprint (detail-states.ts); any other issue is open. */
  states: ReadonlyMap<string, string>;
}

/** Fingerprints as one string of 32 hex digits each; changes as CHANGE_CODES indexes. */
export interface CompactMarks {
  fingerprints: string;
  changes: Uint8Array;
}

export function compactMarks(marks: readonly IssueMark[]): CompactMarks {
  const changes = new Uint8Array(marks.length);
  marks.forEach((mark, i) => {
    changes[i] = CHANGE_CODES.indexOf(mark.change);
  });
  return { fingerprints: marks.map((mark) => mark.fingerprint).join(''), changes };
}

/**
 * zlib's level 3 rather than its default 6: measured on a 75,000-issue answer, 6 % more bytes for
 * about half the time; it is compressed once per report, on the upload's thread.
 */
const GZIP_LEVEL = 3;

const serializeDetail = serializerCompiler({ schema: ReportDetailResponse });
const serializeResult = serializerCompiler({ schema: ReportResultTemplate });

/**
 * The gzip-compressed answer, or null when the report's issue rows are not as many as its issues
 * (deleted meanwhile). A report stored before E1 that the back-fill has not reached yet (marks null)
 * has its fingerprints computed here, the same as the back-fill will store them, and no changes yet.
 */
export function buildDetailBody(source: DetailSource): Buffer | null {
  const { text, compressed } = source.results;
  const results = decodeResults({
    results: text,
    results_br: compressed === null ? null : Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength),
  });
  const fingerprints =
    source.marks?.fingerprints ??
    fingerprintResults(results)
      .map((issue) => issue.fingerprint)
      .join('');
  const template = detailTemplate(results, fingerprints);
  if (template === null) return null;
  // CHANGE_CODES' 0 is null: no baseline (yet).
  const changes = source.marks?.changes ?? new Uint8Array(fingerprints.length / FINGERPRINT_LENGTH);
  return assembleDetailBody({ row: source.row, template, fingerprints, changes, states: source.states });
}

/**
 * An upload's results serialised as the answer has them (UTF-8), with a placeholder where each
 * issue's change goes. Bytes rather than a string: they cross between threads by transfer, not by
 * copy, and never sit on the event loop's heap (a 75,000-issue upload's are 17 MB).
 */
export interface DetailTemplate {
  resultsBytes: Uint8Array;
  /** Where each issue's placeholder starts in `resultsBytes`, in upload order. */
  changeAt: Int32Array;
  placeholderLength: number;
  suppressed: SuppressedCounts;
}

/** `fingerprints`: the issues' fingerprints in upload order, 32 hex digits each. Null if a placeholder cannot be told apart. */
export function detailTemplate(results: readonly StoredResult[], fingerprints: string): DetailTemplate | null {
  const count = fingerprints.length / FINGERPRINT_LENGTH;
  // Random each time: no text of the upload can contain it, even one written to.
  const placeholder = randomBytes(12).toString('hex');
  let next = 0;
  const marksOf = (result: StoredResult) =>
    result.issues.map(() => {
      const i = next++;
      return { fingerprint: fingerprints.slice(i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH), change: placeholder };
    });
  // Result by result, as the schema's array would (`[` items joined by `,` `]`): only one result's
  // answer objects exist at a time. Each result's text becomes bytes at once: a serialiser's text is
  // a rope of small pieces, some 5 times its length in heap until flattened; joining every result's
  // rope before encoding them held all those pieces together (measured on D28's 75,000-issue upload:
  // 87 MiB of the thread's heap, against 16 MiB of text).
  const parts = results.map((result, r) =>
    Buffer.from(`${r === 0 ? '' : ','}${serializeResult(detailResults([result], marksOf(result))[0])}`, 'utf8'),
  );
  parts.unshift(Buffer.from('['));
  parts.push(Buffer.from(']'));
  if (next !== count) return null;
  const resultsBytes = Buffer.concat(parts);
  const quoted = Buffer.from(`"${placeholder}"`, 'latin1');
  const changeAt = new Int32Array(count);
  let from = 0;
  for (let i = 0; i < count; i++) {
    const at = resultsBytes.indexOf(quoted, from);
    if (at < 0) return null;
    changeAt[i] = at;
    from = at + quoted.length;
  }
  if (resultsBytes.includes(quoted, from)) return null;
  return { resultsBytes, changeAt, placeholderLength: quoted.length, suppressed: suppressedCounts(results) };
}

/** What the answer is assembled from: the template, and each issue's fingerprint and change (CHANGE_CODES), in upload order. */
export interface DetailAssembly {
  row: ReportRow;
  template: DetailTemplate;
  /** 32 hex digits per issue. */
  fingerprints: string;
  changes: Uint8Array;
  /** As DetailSource's. */
  states: ReadonlyMap<string, string>;
}

/** The answer from a template once its changes and states are known. */
export function assembleDetailBody({ row, template, fingerprints, changes, states }: DetailAssembly): Buffer {
  // `results` is the last property of ReportDetail, and the response's only one is `data`: the text
  // of the head with empty results ends in `[]}}`, where the results' text goes.
  const head = serializeDetail({ data: { ...detailHead(row, template.suppressed), results: [] } });
  if (!head.endsWith('"results":[]}}')) throw new Error('The report answer no longer ends with its results.');
  const { resultsBytes, changeAt, placeholderLength } = template;
  const bytes = Buffer.from(resultsBytes.buffer, resultsBytes.byteOffset, resultsBytes.byteLength);
  const headBytes = Buffer.from(head.slice(0, -'[]}}'.length), 'utf8');
  const count = changeAt.length;
  if (fingerprints.length !== count * FINGERPRINT_LENGTH || changes.length !== count) {
    throw new Error('The report answer was given marks for other issues.');
  }
  // Each decided issue's state text, as bytes; null for an open one (the shared text).
  const stated = new Array<Buffer | null>(count).fill(null);
  if (states.size > 0) {
    for (let i = 0; i < count; i++) {
      const text = states.get(fingerprints.slice(i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH));
      if (text !== undefined) stated[i] = Buffer.from(text, 'utf8');
    }
  }
  const fingerprintBytes = Buffer.from(fingerprints, 'latin1');
  // Copied into one buffer of the answer's length, rather than gathered as a piece per issue (a
  // 75,000-issue answer's 150,000 Buffer views were some 15 MB of heap).
  let length = headBytes.length + bytes.length - count * placeholderLength + END.length;
  for (let i = 0; i < count; i++) {
    length += CHANGE_JSON[changes[i]!]!.length + STATE_KEY.length + (stated[i]?.length ?? OPEN_STATE_LENGTH);
  }
  const answer = Buffer.allocUnsafe(length);
  let at = headBytes.copy(answer, 0);
  let from = 0;
  for (let i = 0; i < count; i++) {
    at += bytes.copy(answer, at, from, changeAt[i]);
    at += CHANGE_JSON[changes[i]!]!.copy(answer, at);
    at += STATE_KEY.copy(answer, at);
    const state = stated[i];
    if (state) {
      at += state.copy(answer, at);
    } else {
      at += OPEN_BEFORE.copy(answer, at);
      at += fingerprintBytes.copy(answer, at, i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH);
      at += OPEN_AFTER.copy(answer, at);
    }
    from = changeAt[i]! + placeholderLength;
  }
  at += bytes.copy(answer, at, from);
  at += END.copy(answer, at);
  if (at !== length) throw new Error('The report answer was not assembled to its length.');
  return gzipSync(answer, { level: GZIP_LEVEL });
}

const END = Buffer.from('}}');

/** Each change's JSON, by its code. */
const CHANGE_JSON = CHANGE_CODES.map((change) => Buffer.from(JSON.stringify(change)));

/** What follows an issue's change: its state (ReportIssue's last property). */
const STATE_KEY = Buffer.from(',"state":');

/** An issue's state as serialised (the state route's own serialiser, so the same bytes the detail's schema writes). */
export const serializeState = serializerCompiler({ schema: IssueState });

/** An open issue's state (E8.1: nobody decided about it) is this text with its fingerprint between the two parts. */
const [OPEN_BEFORE, OPEN_AFTER] = (() => {
  const marker = 'f'.repeat(FINGERPRINT_LENGTH);
  const text = serializeState(openState(marker));
  const at = text.indexOf(marker);
  if (at < 0 || text.indexOf(marker, at + 1) >= 0) throw new Error('The open state does not name its fingerprint once.');
  return [Buffer.from(text.slice(0, at)), Buffer.from(text.slice(at + marker.length))] as const;
})();
const OPEN_STATE_LENGTH = OPEN_BEFORE.length + FINGERPRINT_LENGTH + OPEN_AFTER.length;
