import { createHash } from 'node:crypto';
import type { ErrorObject } from 'ajv';
import type { FieldErrors } from '../../wire/api-error.js';
import { MAX_JSON_DEPTH, isNestedDeeperThan, parseJsonBody } from '../../wire/json-parse.js';
import { asObject, withStorableText } from '../../wire/json-values.js';
import { toFieldErrors, validatorCompiler } from '../../wire/validation.js';
import { fingerprintResults, type IssueRecord } from '../changes/issue-changes.js';
import { FINGERPRINT_LENGTH } from '../changes/fingerprint.js';
import { detailTemplate, type DetailTemplate } from '../answer/detail-body.js';
import { gitContextOf, type GitContext } from './git-context.js';
import { normalizeConfiguration, normalizeResults } from './normalize-upload.js';
import type { StoredResult } from '../results/stored-result.js';
import { encodeResultsJson } from '../results/results-encoding.js';
import { summarizeResults, type ReportCounts } from '../results/summarize.js';
import { ReportUpload, type ReportUploadInput } from './upload.schemas.js';
import { SEVERITIES, type Severity } from '../vocabulary.js';
import { timeSlices } from '../store/time-slices.js';

/**
 * D28: everything an upload costs before it touches the database, as one function of its bytes, so
 * that it can run on a worker thread (reports/threads/heavy-work.ts): parse, validate, normalise, summarise,
 * fingerprint and compress. What comes back is built to cross a thread cheaply: a handful of strings
 * and byte arrays, never one object per issue (cloning 75,000 issue objects took longer on the
 * receiving thread than parsing the whole upload).
 */
export type UploadOutcome =
  /** Not JSON at all: 400 at parsing, before anything else about the body (D4 step 6). */
  | { kind: 'malformed'; message: string }
  /** JSON, but not an object, or nested too deep: 400 once the credential is checked again (D22). */
  | { kind: 'not-an-object'; message: string }
  /** The schema refused it: 422, after the project's own checks (409). */
  | { kind: 'invalid'; fieldErrors: FieldErrors }
  /** More values or issues than a report may have (UPLOAD_MAX_VALUES, UPLOAD_MAX_ISSUES): 413 at parsing. */
  | { kind: 'too-costly' }
  | { kind: 'processed'; upload: ProcessedUpload };

/** An upload as the reports service stores it. */
export interface ProcessedUpload {
  /** The body's top-level fields, made storable (json-values.ts), that the route and service check. */
  projectId: string | null | undefined;
  analyzedAt: string | null | undefined;
  frameworkVersion: string | null;
  packageVersion: string | null;
  proPackageVersion: string | null;
  triggeredBy: string | null;
  totalExecutionTime: number;
  /** JSON texts of the `metadata`, `summary` (as sent) and `configuration` (normalised) columns. */
  metadata: string;
  clientSummary: string | null;
  configuration: string | null;
  git: GitContext;
  counts: ReportCounts;
  /** The failed analyzers, in upload order, with their issues by severity: what `fail_on` reads (D14). */
  failedAnalyzers: FailedAnalyzer[];
  /** The results' JSON, Brotli-compressed (results/results-encoding.ts). */
  resultsBr: Uint8Array;
  issues: PreparedIssues;
  /** The bulk of the report's answer, serialised while the results are at hand (detail-body.ts). */
  detail: DetailTemplate | null;
  /** SHA-256 of the body's JSON bytes (after any gzip): how a retry of the same upload is known (D40). */
  bodyDigest: string;
}

export interface FailedAnalyzer {
  analyzer_id: string;
  issues: Record<Severity, number>;
  /** Where its issues are among the report's (upload order, PreparedIssues): from `firstIssue`, `issueCount` of them. */
  firstIssue: number;
  issueCount: number;
}

/**
 * A report's issues in upload order (E1.2): their fingerprints as one string of 32 hex digits each,
 * their severity ranks, and their `report_issues` columns as JSON texts of ISSUE_ROWS_PER_BATCH rows.
 */
export interface PreparedIssues {
  count: number;
  fingerprints: string;
  severityRanks: Uint8Array;
  /** Each a JSON array of rows: [severity_rank, fingerprint, analyzer_id, analyzer_name, category, severity, message, file, line, column_number]. */
  batches: string[];
}

/** Rows per insert statement and per JSON batch; small enough that one batch never holds the event loop long. */
export const ISSUE_ROWS_PER_BATCH = 500;

const validateUpload = validatorCompiler({ schema: ReportUpload, httpPart: 'body' }) as ((data: unknown) => boolean) & {
  errors?: ErrorObject[] | null;
};

/**
 * D28: what one upload may cost, so that no body within the 10 MiB limit can take a heavy-work
 * thread to its heap's cap (heavy-work.ts), which may end the whole process rather than the thread.
 * Preparing an upload costs memory with its JSON values (parsing them) and with its issues
 * (fingerprints, rows, the answer: 1 to 3 KB each meanwhile). Within both limits an upload needs at
 * most some 270 MiB of a thread's heap (measured, Node 20: a 10 MiB report of D28's benchmark,
 * 83,000 issues, 190 MiB; 70,000 issues with ten-line code snippets, 268 MiB), about half the cap.
 * Beyond either, the body is refused as too costly (413).
 *
 * - UPLOAD_MAX_VALUES: counted in the bytes before anything is parsed (`exceedsJsonValues`). The
 *   client package's reports have one value in 15 to 19 bytes (600,000 in 10 MiB), the benchmark's
 *   one in 11 (920,000); 3.5 million empty objects (`{},` repeated) are what the limit is for.
 * - UPLOAD_MAX_ISSUES: issues and suppressed issues of all results, counted once the body is valid.
 */
export const UPLOAD_MAX_VALUES = 1_500_000;
export const UPLOAD_MAX_ISSUES = 120_000;

/** `bytes`: the body as received (after gzip), UTF-8 JSON. */
export function processUploadBytes(bytes: Uint8Array): UploadOutcome {
  if (exceedsJsonValues(bytes, UPLOAD_MAX_VALUES)) return { kind: 'too-costly' };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let body: unknown;
  try {
    body = parseJsonBody(text);
  } catch (error) {
    return { kind: 'malformed', message: (error as Error).message };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { kind: 'not-an-object', message: 'The request body must be a JSON object.' };
  }
  if (isNestedDeeperThan(body, MAX_JSON_DEPTH)) {
    return { kind: 'not-an-object', message: `The request body may not be nested more than ${MAX_JSON_DEPTH} levels deep.` };
  }
  if (!validateUpload(body)) return { kind: 'invalid', fieldErrors: toFieldErrors(validateUpload.errors ?? []) };
  if (issueCount(body as ReportUploadInput) > UPLOAD_MAX_ISSUES) return { kind: 'too-costly' };
  const bodyDigest = createHash('sha256').update(bytes).digest('base64url');
  return { kind: 'processed', upload: processUpload(withStorableText(body as ReportUploadInput), bodyDigest) };
}

/**
 * Whether the JSON text `bytes` holds more than `max` values, without parsing it: every value but
 * the first follows a `,`, a `:` or an opening bracket outside a string, so their count bounds the
 * values from above (and the object keys with them). One pass over the bytes, some 10 ms for 10 MiB.
 */
export function exceedsJsonValues(bytes: Uint8Array, max: number): boolean {
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      // To the string's closing quote: the next one not escaped by a backslash.
      for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (byte === COMMA || byte === COLON || byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++count > max) return true;
    }
  }
  return false;
}

const [QUOTE, BACKSLASH, COMMA, COLON, OPEN_ARRAY, OPEN_OBJECT] = [...'"\\,:[{'].map((character) => character.charCodeAt(0));

/** The issues and suppressed issues of all results (lists, or PHP's objects keyed by position). */
function issueCount(upload: ReportUploadInput): number {
  const sizeOf = (list: unknown[] | Record<string, unknown> | undefined) =>
    list === undefined ? 0 : Array.isArray(list) ? list.length : Object.keys(list).length;
  return upload.results.reduce((sum, result) => sum + sizeOf(result.issues) + sizeOf(result.suppressed_issues), 0);
}

/**
 * CLIENT-WIRE.md "What the service does with a report": normalise the PHP encodings and recompute
 * the summary from the results (the client's `summary` is kept only as sent).
 */
export function processUpload(upload: ReportUploadInput, bodyDigest: string): ProcessedUpload {
  const results = normalizeResults(upload.results);
  // The parsed results are garbage from here on (a 75,000-issue upload's are some 100 MB): the
  // thread's bounded heap (heavy-work.ts) may reclaim them while the rest is prepared.
  upload.results = [];
  const metadata = asObject(upload.metadata);
  return {
    projectId: upload.project_id,
    analyzedAt: upload.analyzed_at,
    // The client calls it laravel_version; framework_version is accepted as an alias.
    frameworkVersion: upload.laravel_version ?? upload.framework_version ?? null,
    packageVersion: upload.package_version ?? null,
    proPackageVersion: upload.pro_package_version ?? null,
    triggeredBy: upload.triggered_by ?? null,
    // The client sends the sum of the analyzers' times; older ones may not.
    totalExecutionTime: upload.total_execution_time ?? sumExecutionTimes(results),
    metadata: JSON.stringify(metadata),
    clientSummary: upload.summary === undefined ? null : JSON.stringify(upload.summary),
    configuration: upload.configuration === undefined ? null : JSON.stringify(normalizeConfiguration(upload.configuration)),
    git: gitContextOf(metadata),
    ...prepareResults(results),
    bodyDigest,
  };
}

/** What storing `results` needs, whoever sent them (an upload, the operator, a test's factory). */
export function prepareResults(results: readonly StoredResult[]) {
  const issues = prepareIssues(fingerprintResults(results));
  const json = JSON.stringify(results);
  return {
    counts: summarizeResults(results),
    failedAnalyzers: failedAnalyzersOf(results),
    resultsBr: encodeResultsJson(json).results_br!,
    issues,
    // From the results as stored, as a read decodes them: JSON has no Infinity (a client's
    // `"line": 1e309`), which the stored text keeps as null and the answer's schema refuses.
    detail: detailTemplate(JSON.parse(json) as StoredResult[], issues.fingerprints),
  };
}

export function prepareIssues(issues: readonly IssueRecord[]): PreparedIssues {
  const severityRanks = new Uint8Array(issues.length);
  const batches: string[] = [];
  let fingerprints = '';
  for (let start = 0; start < issues.length; start += ISSUE_ROWS_PER_BATCH) {
    const rows: unknown[] = [];
    for (let i = start; i < Math.min(issues.length, start + ISSUE_ROWS_PER_BATCH); i++) {
      const issue = issues[i]!;
      const rank = SEVERITIES.indexOf(issue.severity);
      severityRanks[i] = rank;
      fingerprints += issue.fingerprint;
      rows.push([
        rank,
        issue.fingerprint,
        issue.analyzer_id,
        issue.analyzer_name,
        issue.category,
        issue.severity,
        issue.message,
        issue.file,
        issue.line,
        issue.column_number,
      ]);
    }
    batches.push(JSON.stringify(rows));
  }
  return { count: issues.length, fingerprints, severityRanks, batches };
}

/** The `i`th fingerprint of `issues` (upload order). */
export function fingerprintAt(issues: Pick<PreparedIssues, 'fingerprints'>, i: number): string {
  return issues.fingerprints.slice(i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH);
}

function failedAnalyzersOf(results: readonly StoredResult[]): FailedAnalyzer[] {
  const failed: FailedAnalyzer[] = [];
  // The report's issues are its results' issues one result after another (fingerprintResults).
  let firstIssue = 0;
  for (const result of results) {
    if (result.status === 'failed') {
      const issues: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
      for (const issue of result.issues) issues[issue.severity] += 1;
      failed.push({ analyzer_id: result.analyzer_id, issues, firstIssue, issueCount: result.issues.length });
    }
    firstIssue += result.issues.length;
  }
  return failed;
}

/**
 * The analyzer, file and message of the issues at `indexes` (ascending), read from the batches that
 * hold them; the event loop is given back between batches (a first run of a large report's branch
 * reads them all).
 */
export async function identitiesAt(issues: Pick<PreparedIssues, 'batches'>, indexes: readonly number[]) {
  const identities: { analyzer_id: string; file: string | null; message: string }[] = [];
  const pause = timeSlices();
  let batchIndex = -1;
  let rows: unknown[][] = [];
  for (const index of indexes) {
    const wanted = Math.floor(index / ISSUE_ROWS_PER_BATCH);
    if (wanted !== batchIndex) {
      await pause();
      batchIndex = wanted;
      rows = JSON.parse(issues.batches[wanted]!) as unknown[][];
    }
    // prepareIssues' row: [severity_rank, fingerprint, analyzer_id, analyzer_name, category, severity, message, file, ...].
    const row = rows[index % ISSUE_ROWS_PER_BATCH]!;
    identities.push({ analyzer_id: row[2] as string, file: row[7] as string | null, message: row[6] as string });
  }
  return identities;
}

/** Rounded to microseconds, so 0.4 + 0.2 reads 0.6 and not 0.6000000000000001. */
function sumExecutionTimes(results: readonly { execution_time: number }[]): number {
  return Math.round(results.reduce((sum, result) => sum + result.execution_time, 0) * 1e6) / 1e6;
}
