import { gzipSync } from 'node:zlib';
import { serializerCompiler } from '../http/serialization.js';
import { CHANGE_CODES, type IssueMark } from './changes.js';
import { toReportDetail } from './report-detail.js';
import type { ReportRow } from './reports.repository.js';
import { ReportDetailResponse } from './reports.schemas.js';
import { FINGERPRINT_LENGTH } from './upload-processing.js';

/**
 * D28: `GET /api/v1/reports/{report}`'s answer, built once and kept gzip-compressed
 * (`report_bodies`), so that a read costs neither serialisation nor memory in proportion to the
 * report. The text is the route's own serialiser's (Fastify's, from the response schema), so it is
 * byte for byte what the route would have sent.
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

const serializeDetail = serializerCompiler({
  schema: ReportDetailResponse,
  method: 'GET',
  url: '/api/v1/reports/:report',
  httpStatus: '200',
});

/** The gzip-compressed answer, or null when the report's issue rows are fewer than its issues (deleted meanwhile). */
export function buildDetailBody(source: DetailSource): Buffer | null {
  const { text, compressed } = source.results;
  const stored = {
    results: text,
    results_br: compressed === null ? null : Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength),
  };
  const detail = toReportDetail(source.row, stored, source.marks === null ? null : expandMarks(source.marks));
  if (detail === null) return null;
  return gzipSync(serializeDetail({ data: detail }) as string);
}

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
