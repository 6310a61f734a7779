import { Type, type Static } from 'typebox';
import {
  clientVersionFields,
  ListOrKeyedObject,
  NullableObject,
  ObjectOrEmptyArray,
  OptionalInteger,
  OptionalNumber,
  OptionalString,
  OptionalTimestamp,
} from '../../wire/lenient-schemas.js';
import { RESULT_STATUSES, SEVERITIES, type ResultStatus, type Severity } from '../vocabulary.js';

/**
 * What the published client package sends to `POST /api/reports` (CLIENT-WIRE.md), as JSON Schema
 * for Ajv. The schemas accept PHP's encodings; `normalize-upload.ts` then turns them into one
 * canonical shape. The input types are the schemas' own (`Static<>`).
 */

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
  location: Type.Optional(NullableObject(Location)),
  metadata: Type.Optional(ObjectOrEmptyArray()),
  code_snippet: Type.Optional(NullableObject(CodeSnippet)),
};
const Issue = Type.Object(issueFields);
export type IssueInput = Static<typeof Issue>;

const SuppressedIssue = Type.Object({
  ...issueFields,
  suppression: Type.Optional(ObjectOrEmptyArray()),
});
export type SuppressedIssueInput = Static<typeof SuppressedIssue>;

const Result = Type.Object({
  analyzer_id: Type.String({ minLength: 1, maxLength: 255 }),
  status: Type.Unsafe<ResultStatus>({ type: 'string', enum: [...RESULT_STATUSES] }),
  message: OptionalString({ maxLength: 65_535 }),
  issues: Type.Optional(ListOrKeyedObject(Issue, { maxItems: 100_000 })),
  execution_time: OptionalNumber({ minimum: 0 }),
  metadata: Type.Optional(ObjectOrEmptyArray()),
  suppressed_issues: Type.Optional(ListOrKeyedObject(SuppressedIssue, { maxItems: 100_000 })),
});
/** One result entry as the schema has accepted it (before normalisation). */
export type ResultInput = Static<typeof Result>;

/** `POST /api/reports` (and the older clients' `POST /api/v1/reports`). Only `results` is required. */
export const ReportUpload = Type.Object(
  {
    ...clientVersionFields(),
    pro_package_version: OptionalString({ maxLength: 100 }),
    triggered_by: OptionalString({ maxLength: 100 }),
    analyzed_at: OptionalTimestamp(),
    total_execution_time: OptionalNumber({ minimum: 0 }),
    summary: Type.Optional(ObjectOrEmptyArray()),
    results: Type.Array(Result, { maxItems: 10_000 }),
    metadata: Type.Optional(ObjectOrEmptyArray()),
    configuration: Type.Optional(ObjectOrEmptyArray()),
  },
  { $id: 'ReportUpload' },
);
export type ReportUploadInput = Static<typeof ReportUpload>;
