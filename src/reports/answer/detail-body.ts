import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { serializerCompiler } from '../../wire/serialization.js';
import { CHANGE_CODES, type IssueMark } from '../changes/issue-changes.js';
import { detailHead, detailResults, suppressedCounts, toReportDetail, type SuppressedCounts } from './detail-shape.js';
import type { StoredResult } from '../results/stored-result.js';
import type { ReportRow } from '../store/report-rows.js';
import { ReportDetail, ReportDetailResponse } from '../reports.schemas.js';
import { FINGERPRINT_LENGTH } from '../changes/fingerprint.js';

/**
 * D28: `GET /api/v1/reports/{report}`'s answer, built once and kept gzip-compressed
 * (`report_bodies`), so that a read costs neither serialisation nor memory in proportion to the
 * report. The text is the route's own serialiser's (Fastify's, from the response schema), so it is
 * byte for byte what the route would have sent.
 *
 * Two ways to build it:
 * - from a stored report (`buildDetailBody`): its results decoded, its marks read back;
 * - at upload, in two steps (`detailTemplate`, then `assembleDetailBody`): the results, the bulk
 *   of the answer, are serialised where the upload is prepared, while they are at hand, with a
 *   placeholder for each issue's change, which only the upload's transaction decides; then the
 *   placeholders are replaced and the head (the row's fields) put in front.
 */
export interface DetailSource {
  /** The report's row with its baseline's columns. */
  row: ReportRow;
  /** Its results as stored: the JSON of reports from before migration 0006, else its compressed bytes. */
  results: { text: string; compressed: Uint8Array | null };
  /** The fingerprint and change of each issue in upload order, compact (null: not fingerprinted yet). */
  marks: CompactMarks | null;
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
const serializeResult = serializerCompiler({ schema: ReportDetail.properties.results.items });

/** The gzip-compressed answer, or null when the report's issue rows are fewer than its issues (deleted meanwhile). */
export function buildDetailBody(source: DetailSource): Buffer | null {
  const { text, compressed } = source.results;
  const stored = {
    results: text,
    results_br: compressed === null ? null : Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength),
  };
  const detail = toReportDetail(source.row, stored, source.marks === null ? null : expandMarks(source.marks));
  if (detail === null) return null;
  return gzipSync(serializeDetail({ data: detail }), { level: GZIP_LEVEL });
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

/** The answer from an upload's template once its changes are known (CHANGE_CODES of `changes`, in upload order). */
export function assembleDetailBody({ row, template, changes }: { row: ReportRow; template: DetailTemplate; changes: Uint8Array }): Buffer {
  // `results` is the last property of ReportDetail, and the response's only one is `data`: the text
  // of the head with empty results ends in `[]}}`, where the results' text goes.
  const head = serializeDetail({ data: { ...detailHead(row, template.suppressed), results: [] } });
  if (!head.endsWith('"results":[]}}')) throw new Error('The report answer no longer ends with its results.');
  const { resultsBytes, changeAt, placeholderLength } = template;
  const bytes = Buffer.from(resultsBytes.buffer, resultsBytes.byteOffset, resultsBytes.byteLength);
  const headBytes = Buffer.from(head.slice(0, -'[]}}'.length), 'utf8');
  // Copied into one buffer of the answer's length, rather than gathered as a piece per issue (a
  // 75,000-issue answer's 150,000 Buffer views were some 15 MB of heap).
  let length = headBytes.length + bytes.length - changeAt.length * placeholderLength + END.length;
  for (let i = 0; i < changeAt.length; i++) length += CHANGE_JSON[changes[i]!]!.length;
  const answer = Buffer.allocUnsafe(length);
  let at = headBytes.copy(answer, 0);
  let from = 0;
  for (let i = 0; i < changeAt.length; i++) {
    at += bytes.copy(answer, at, from, changeAt[i]);
    at += CHANGE_JSON[changes[i]!]!.copy(answer, at);
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

function expandMarks({ fingerprints, changes }: CompactMarks): IssueMark[] {
  const marks = new Array<IssueMark>(changes.length);
  for (let i = 0; i < changes.length; i++) {
    marks[i] = {
      fingerprint: fingerprints.slice(i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH),
      change: CHANGE_CODES[changes[i]!]!,
    };
  }
  return marks;
}
