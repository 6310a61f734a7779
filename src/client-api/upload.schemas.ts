import { Type } from 'typebox';

/**
 * What the published client package sends (CLIENT-WIRE.md), as JSON Schema for Ajv. The schemas
 * accept PHP's encodings; `normalize-upload.ts` then turns them into one canonical shape. Each
 * "either" is written as a JSON Schema type list rather than an `anyOf`, so a wrong value gets one
 * clear message instead of one per alternative.
 */

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const RESULT_STATUSES = ['passed', 'failed', 'warning', 'skipped', 'error'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const FAILURE_REASONS = ['invalid_options', 'all_categories_disabled', 'no_analyzers_ran', 'uncaught_exception'] as const;

/**
 * A PHP list whose filtered entries kept their keys arrives as an object `{"1": …, "2": …}`. A
 * `maxItems` bounds that object form too (as `maxProperties`), so the keyed form cannot bypass it.
 */
const ListOrKeyedObject = (item: object, options: Record<string, unknown> = {}) =>
  Type.Unsafe<unknown[] | Record<string, unknown>>({
    type: ['array', 'object'],
    items: item,
    additionalProperties: item,
    propertyNames: { pattern: '^(0|[1-9][0-9]{0,8})$' },
    ...(options.maxItems !== undefined && { maxProperties: options.maxItems }),
    ...options,
  });

/** An empty PHP associative array is encoded as `[]`: an object, or an empty array. */
const ObjectOrEmptyArray = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<Record<string, unknown> | []>({ type: ['object', 'array'], maxItems: 0, ...options });

/** Optional scalars: older clients leave fields out, and PHP writes unset ones as null. */
const OptionalString = (options: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], ...options }));
/** PHP floats such as 2.0 arrive as the integer 2: any JSON number. */
const OptionalNumber = (options: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<number | null>({ type: ['number', 'null'], ...options }));
const OptionalInteger = () => Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'] }));

const Location = Type.Object({
  file: Type.String({ maxLength: 4096 }),
  line: OptionalInteger(),
  column: OptionalInteger(),
});

/** `lines` is keyed by line number; keys 0..n-1 make PHP send a list, and no lines an empty `[]`. */
const CodeSnippet = Type.Object({
  file: OptionalString({ maxLength: 4096 }),
  target_line: OptionalInteger(),
  lines: Type.Optional(ListOrKeyedObject(Type.Unsafe<string | null>({ type: ['string', 'null'] }))),
  context_lines: OptionalInteger(),
});

const issueFields = {
  message: Type.String({ maxLength: 65_535 }),
  severity: Type.Unsafe<Severity>({ type: 'string', enum: [...SEVERITIES] }),
  recommendation: OptionalString({ maxLength: 65_535 }),
  location: Type.Optional(Type.Unsafe<object | null>({ ...Location, type: ['object', 'null'] })),
  metadata: Type.Optional(ObjectOrEmptyArray()),
  code_snippet: Type.Optional(Type.Unsafe<object | null>({ ...CodeSnippet, type: ['object', 'null'] })),
};
const Issue = Type.Object(issueFields);
const SuppressedIssue = Type.Object({
  ...issueFields,
  suppression: Type.Optional(ObjectOrEmptyArray()),
});

const Result = Type.Object({
  analyzer_id: Type.String({ minLength: 1, maxLength: 255 }),
  status: Type.Unsafe<ResultStatus>({ type: 'string', enum: [...RESULT_STATUSES] }),
  message: OptionalString({ maxLength: 65_535 }),
  issues: Type.Optional(ListOrKeyedObject(Issue, { maxItems: 100_000 })),
  execution_time: OptionalNumber({ minimum: 0 }),
  metadata: Type.Optional(ObjectOrEmptyArray()),
  suppressed_issues: Type.Optional(ListOrKeyedObject(SuppressedIssue, { maxItems: 100_000 })),
});

/** ISO 8601 with an offset, as PHP's DATE_ATOM writes it. */
const Timestamp = () => OptionalString({ format: 'date-time' });

/** `POST /api/reports` (and the older clients' `POST /api/v1/reports`). Only `results` is required. */
export const ReportUpload = Type.Object(
  {
    project_id: OptionalString({ maxLength: 255 }),
    laravel_version: OptionalString({ maxLength: 100 }),
    framework_version: OptionalString({ maxLength: 100 }),
    package_version: OptionalString({ maxLength: 100 }),
    pro_package_version: OptionalString({ maxLength: 100 }),
    triggered_by: OptionalString({ maxLength: 100 }),
    analyzed_at: Timestamp(),
    total_execution_time: OptionalNumber({ minimum: 0 }),
    summary: Type.Optional(ObjectOrEmptyArray()),
    results: Type.Array(Result, { maxItems: 10_000 }),
    metadata: Type.Optional(ObjectOrEmptyArray()),
    configuration: Type.Optional(ObjectOrEmptyArray()),
  },
  { $id: 'ReportUpload' },
);

/** One result entry as the schema above has accepted it (before normalisation). */
export interface ResultInput {
  analyzer_id: string;
  status: ResultStatus;
  message?: string | null;
  issues?: IssueInput[] | Record<string, IssueInput>;
  execution_time?: number | null;
  metadata?: Record<string, unknown> | [];
  suppressed_issues?: SuppressedIssueInput[] | Record<string, SuppressedIssueInput>;
}

export interface IssueInput {
  message: string;
  severity: Severity;
  recommendation?: string | null;
  location?: { file: string; line?: number | null; column?: number | null } | null;
  metadata?: Record<string, unknown> | [];
  code_snippet?: {
    file?: string | null;
    target_line?: number | null;
    lines?: (string | null)[] | Record<string, string | null>;
    context_lines?: number | null;
  } | null;
}

export interface SuppressedIssueInput extends IssueInput {
  suppression?: Record<string, unknown> | [];
}

export interface ReportUploadInput {
  project_id?: string | null;
  laravel_version?: string | null;
  framework_version?: string | null;
  package_version?: string | null;
  pro_package_version?: string | null;
  triggered_by?: string | null;
  analyzed_at?: string | null;
  total_execution_time?: number | null;
  summary?: Record<string, unknown> | [];
  results: ResultInput[];
  metadata?: Record<string, unknown> | [];
  configuration?: Record<string, unknown> | [];
}

/** `POST /api/reports/failure`: a run that aborted before completion. */
export const FailureUpload = Type.Object(
  {
    project_id: OptionalString({ maxLength: 255 }),
    laravel_version: OptionalString({ maxLength: 100 }),
    framework_version: OptionalString({ maxLength: 100 }),
    package_version: OptionalString({ maxLength: 100 }),
    status: OptionalString({ maxLength: 50 }),
    failure_reason: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], enum: [...FAILURE_REASONS, null] })),
    failure_label: OptionalString({ maxLength: 255 }),
    error_message: OptionalString({ maxLength: 65_535 }),
    triggered_by: OptionalString({ maxLength: 100 }),
    occurred_at: Timestamp(),
    metadata: Type.Optional(ObjectOrEmptyArray()),
  },
  { $id: 'FailureUpload' },
);

export interface FailureUploadInput {
  project_id?: string | null;
  laravel_version?: string | null;
  framework_version?: string | null;
  package_version?: string | null;
  status?: string | null;
  failure_reason?: string | null;
  failure_label?: string | null;
  error_message?: string | null;
  triggered_by?: string | null;
  occurred_at?: string | null;
  metadata?: Record<string, unknown> | [];
}
