import { Type, type Static, type TInteger } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Nullable, NullableString, NullableTimestamp } from '../http/schemas.js';
import { RESULT_STATUSES, SEVERITIES, type ResultStatus, type Severity } from './vocabulary.js';

export const IssuesBySeverity = Type.Object(
  Object.fromEntries(SEVERITIES.map((severity) => [severity, Type.Integer()])) as Record<Severity, TInteger>,
);

/** api-v1.md 2.2: the summary of a report, as `latest_report` and in report lists. */
export const ReportSummary = Type.Object(
  {
    id: Type.Integer({ description: 'Report database id' }),
    uuid: Type.String({ format: 'uuid', description: 'Identifies the report in report URLs' }),
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    total: Type.Integer(),
    passed: Type.Integer(),
    failed: Type.Integer(),
    warnings: Type.Integer(),
    skipped: Type.Integer(),
    errors: Type.Integer(),
    total_issues: Type.Integer(),
    issues_by_severity: IssuesBySeverity,
    framework_version: NullableString(),
    package_version: NullableString(),
    total_execution_time: Nullable<number>('number', { description: 'Seconds' }),
    triggered_by: NullableString(),
    analyzed_at: NullableTimestamp(),
    created_at: NullableTimestamp(),
  },
  { $id: 'ReportSummary' },
);
export type ReportSummary = Static<typeof ReportSummary>;

const SeveritySchema = Type.Unsafe<Severity>({ type: 'string', enum: [...SEVERITIES] });

/** E1.8: the gate the upload's answer gave, stored; null for reports stored before gates were. */
export const StoredGate = Type.Object(
  { passed: Type.Boolean(), reasons: Type.Array(Type.String()) },
  { $id: 'StoredGate', description: 'The quality gate of the upload (E1.8).' },
);
export type StoredGate = Static<typeof StoredGate>;

/** E1.4/E1.5: what changed against the baseline; the counts are null without one. */
const ReportChanges = Type.Object(
  {
    baseline: Type.Union([
      Type.Object({
        uuid: Type.String({ format: 'uuid' }),
        analyzed_at: Type.String({ format: 'date-time' }),
        branch: NullableString(),
        commit: NullableString(),
      }),
      Type.Null(),
    ], { description: 'The report compared with; null without one, or once it was deleted.' }),
    new: Nullable<number>('integer', { description: 'Issues whose fingerprint the baseline did not have.' }),
    fixed: Nullable<number>('integer', { description: "The baseline's issues this report no longer has." }),
    unchanged: Nullable<number>('integer', { description: 'Issues in both.' }),
  },
  { $id: 'ReportChanges' },
);

/** E1.5: what a report list item adds to the 2.2 summary. */
const reportContextFields = {
  branch: NullableString({ description: 'git_branch of the run (E1.1).' }),
  commit: NullableString({ description: 'git_commit of the run.' }),
  pull_request: NullableString({ description: 'pr_number of the run.' }),
  base_branch: NullableString({ description: "The pull request's base branch." }),
  gate: Type.Union([StoredGate, Type.Null()]),
  changes: ReportChanges,
};

/** E1.5: an entry of a project's report list (and of its branches). */
export const ReportListItem = Type.Object({ ...ReportSummary.properties, ...reportContextFields }, { $id: 'ReportListItem' });
export type ReportListItem = Static<typeof ReportListItem>;

const IssueLocation = Type.Object({
  file: Type.String(),
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  column: Type.Optional(Type.Integer({ minimum: 1 })),
});

const CodeSnippet = Type.Object({
  file: NullableString({ description: 'Absolute path on the machine that ran the analysis' }),
  target_line: Nullable<number>('integer'),
  lines: Type.Record(Type.String(), Type.String(), { description: 'Line number -> source text' }),
  context_lines: Nullable<number>('integer'),
});

const issueFields = {
  message: Type.String(),
  severity: SeveritySchema,
  location: Type.Union([IssueLocation, Type.Null()]),
  recommendation: Type.String(),
  code_snippet: Type.Optional(CodeSnippet),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
};

export const ReportIssue = Type.Object(
  {
    ...issueFields,
    fingerprint: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'Stable across runs (E1.2).' }),
    change: Type.Unsafe<'new' | 'unchanged' | null>({
      type: ['string', 'null'],
      enum: ['new', 'unchanged', null],
      description: 'Against the baseline; null without one (E1.5).',
    }),
  },
  { $id: 'ReportIssue' },
);

const ReportResult = Type.Object(
  {
    analyzer_id: Type.String({ examples: ['sql-injection'] }),
    analyzer_name: Type.String({ examples: ['SQL Injection'] }),
    category: NullableString({ examples: ['security'] }),
    status: Type.Unsafe<ResultStatus>({ type: 'string', enum: [...RESULT_STATUSES] }),
    message: Type.String(),
    execution_time: Type.Number({ description: 'Seconds' }),
    issues: Type.Array(ReportIssue),
    suppressed_issues: Type.Array(
      Type.Object({ ...issueFields, suppression: Type.Record(Type.String(), Type.Unknown()) }),
      { description: 'Issues the client suppressed (inline, config or baseline); not counted in the summary.' },
    ),
  },
  { $id: 'ReportResult' },
);

const JsonObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/** `GET /api/v1/reports/{report}`: the summary fields plus the full results. */
export const ReportDetail = Type.Object(
  {
    ...ReportSummary.properties,
    ...reportContextFields,
    project_id: Type.String({ format: 'uuid' }),
    pro_package_version: NullableString(),
    suppressed_issues: Type.Object({
      inline: Type.Integer(),
      config: Type.Integer(),
      baseline: Type.Integer(),
      total: Type.Integer(),
    }),
    metadata: JsonObject('Run context: git_branch, git_commit, ci_provider, environment, php_version, ...'),
    configuration: JsonObject("The client's effective configuration, as sent"),
    results: Type.Array(ReportResult),
  },
  { $id: 'ReportDetail' },
);
export type ReportDetail = Static<typeof ReportDetail>;

export const ReportDetailResponse = Type.Object({ data: ReportDetail });

export const ReportParams = Type.Object({
  report: Type.String({ format: 'uuid', description: 'Report UUID. Anything else is a 404.' }),
});

/** E1.6: one entry of a report's changes. */
export const ChangeItem = Type.Object(
  {
    fingerprint: Type.String({ pattern: '^[0-9a-f]{32}$' }),
    change: Type.Unsafe<'new' | 'fixed' | 'unchanged' | null>({
      type: ['string', 'null'],
      enum: ['new', 'fixed', 'unchanged', null],
      description: '`fixed`: an issue of the baseline this report no longer has. Null: the report has no baseline.',
    }),
    analyzer_id: Type.String(),
    analyzer_name: Type.String(),
    category: NullableString(),
    severity: SeveritySchema,
    message: Type.String(),
    location: Type.Union([IssueLocation, Type.Null()]),
  },
  { $id: 'ChangeItem' },
);
export type ChangeItem = Static<typeof ChangeItem>;

const ChangeKindQuery = Type.Unsafe<'new' | 'fixed' | 'unchanged'>({ type: 'string', enum: ['new', 'fixed', 'unchanged'] });

export const ChangesQuery = Type.Object({
  kind: Type.Optional(ChangeKindQuery),
  severity: Type.Optional(SeveritySchema),
  page: PageQuery.properties.page,
});

export const ReportListQuery = Type.Object({
  branch: Type.Optional(
    Type.String({ maxLength: 1000, description: "Only this branch's reports; empty: the reports without a branch (E1.6)." }),
  ),
  page: PageQuery.properties.page,
});

/** E1.6: `GET /projects/{project}/branches`. */
export const BranchesResponse = Type.Object({
  data: Type.Array(
    Type.Object({
      name: NullableString({ description: 'Null for the reports without a branch.' }),
      latest_report: ReportListItem,
    }),
  ),
});
