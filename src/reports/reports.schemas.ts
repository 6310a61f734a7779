import { Type, type Static, type TInteger } from 'typebox';
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

export const ReportIssue = Type.Object(issueFields, { $id: 'ReportIssue' });

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
