import { Type, type Static, type TInteger } from 'typebox';
import { PageQuery } from '../wire/pagination.js';
import { Nullable, NullableString, NullableTimestamp } from '../wire/schemas.js';
import { EXPORT_FORMATS, EXPORT_MEDIA_TYPES, type ExportFormat, FINGERPRINT_KEY, SARIF_SCHEMA_URI } from './export/export-formats.js';
import { RESULT_STATUSES, SEVERITIES, SUPPRESSION_TYPES, type ResultStatus, type Severity, type SuppressionType } from './vocabulary.js';
import { IssueState, IssueStatusSchema } from '../issues/issue-state.schemas.js';
import { type IssueStatus, STATE_FILTERS, type StateFilter } from '../issues/issue-vocabulary.js';

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
  {
    passed: Type.Boolean(),
    reasons: Type.Array(Type.String()),
    dismissed: Type.Integer({
      minimum: 0,
      description:
        "How many of the report's issues were dismissed when it was stored, and so left out of the gate; 0 for reports stored before dismissals.",
    }),
  },
  { $id: 'StoredGate', description: 'The quality gate of the upload.' },
);
export type StoredGate = Static<typeof StoredGate>;

/** E1.4/E1.5: what changed against the baseline; the counts are null without one. */
const ReportChanges = Type.Object(
  {
    baseline: Type.Union(
      [
        Type.Object({
          uuid: Type.String({ format: 'uuid' }),
          analyzed_at: Type.String({ format: 'date-time' }),
          branch: NullableString(),
          commit: NullableString(),
        }),
        Type.Null(),
      ],
      { description: 'The report compared with; null without one, or once it was deleted.' },
    ),
    new: Nullable<number>('integer', { description: 'Issues whose fingerprint the baseline did not have.' }),
    fixed: Nullable<number>('integer', { description: "The baseline's issues this report no longer has." }),
    unchanged: Nullable<number>('integer', { description: 'Issues in both.' }),
  },
  { $id: 'ReportChanges' },
);

/** E1.5: what a report list item adds to the 2.2 summary. */
const reportContextFields = {
  branch: NullableString({ description: 'git_branch of the run.' }),
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

const reportIssueFields = {
  ...issueFields,
  fingerprint: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'Stable across runs.' }),
  change: Type.Unsafe<'new' | 'unchanged' | null>({
    type: ['string', 'null'],
    enum: ['new', 'unchanged', null],
    description: 'Against the baseline; null without one.',
  }),
};

/** E1.5 and E8.3: an issue of the report detail, with its state as of the read. */
export const ReportIssue = Type.Object({ ...reportIssueFields, state: IssueState }, { $id: 'ReportIssue' });

const reportResultFields = {
  analyzer_id: Type.String({ examples: ['sql-injection'] }),
  analyzer_name: Type.String({ examples: ['SQL Injection'] }),
  category: NullableString({ examples: ['security'] }),
  status: Type.Unsafe<ResultStatus>({ type: 'string', enum: [...RESULT_STATUSES] }),
  message: Type.String(),
  execution_time: Type.Number({ description: 'Seconds' }),
  issues: Type.Array(ReportIssue),
  suppressed_issues: Type.Array(Type.Object({ ...issueFields, suppression: Type.Record(Type.String(), Type.Unknown()) }), {
    description: 'Issues the client suppressed (inline, config or baseline); not counted in the summary.',
  }),
};

const ReportResult = Type.Object(reportResultFields, { $id: 'ReportResult' });

/**
 * A result as the stored answer's template is serialised (answer/detail-body.ts): each issue without
 * its state, which is written in afterwards with its change. Never in the OpenAPI document.
 */
export const ReportResultTemplate = Type.Object({
  ...reportResultFields,
  issues: Type.Array(Type.Object({ ...reportIssueFields, state: Type.Optional(IssueState) })),
});
export type ReportResultTemplate = Static<typeof ReportResultTemplate>;

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

/** E1.6: one entry of a report's changes, with (E8.3) its state as of the read. */
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
    state: IssueState,
  },
  { $id: 'ChangeItem' },
);
export type ChangeItem = Static<typeof ChangeItem>;

const ChangeKindQuery = Type.Unsafe<'new' | 'fixed' | 'unchanged'>({ type: 'string', enum: ['new', 'fixed', 'unchanged'] });

const StateFilterQuery = Type.Unsafe<StateFilter>({
  type: 'string',
  enum: [...STATE_FILTERS],
  description:
    "`dismissed`: only the issues under a dismissal in force now (accepted and not expired, false positive, won't fix); `open`: the others.",
});

export const ChangesQuery = Type.Object({
  kind: Type.Optional(ChangeKindQuery),
  severity: Type.Optional(SeveritySchema),
  state: Type.Optional(StateFilterQuery),
  page: PageQuery.properties.page,
});

/** `GET /projects/{project}/issues`: the issues of the project's latest report, with their states. */
export const ProjectIssuesQuery = Type.Object({
  status: Type.Optional(
    Type.Unsafe<IssueStatus>({
      ...IssueStatusSchema,
      description: 'Only the issues with this status now; `open` includes the issues nobody decided about and expired acceptances.',
    }),
  ),
  severity: Type.Optional(SeveritySchema),
  assignee: Type.Optional(
    Type.String({
      pattern: '^(me|none|[1-9][0-9]{0,14})$',
      description: '`me` (the caller), `none` (nobody), or a user id.',
    }),
  ),
  branch: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: "The latest report of this branch; empty: of the reports without a branch. Absent: the project's latest report.",
    }),
  ),
  page: PageQuery.properties.page,
});

/** E8.6: one issue the client suppressed, with its analyzer and the suppression as the client sent it. */
export const SuppressedItem = Type.Object(
  {
    analyzer_id: Type.String(),
    analyzer_name: Type.String(),
    category: NullableString(),
    severity: SeveritySchema,
    message: Type.String(),
    location: Type.Union([IssueLocation, Type.Null()]),
    suppression: Type.Object({
      type: NullableString({
        description:
          "inline (a comment in the code), config (the client's configuration) or baseline; as the client sent it, null if it sent none.",
      }),
      description: NullableString({ description: "The client's own words about the suppression; null if it sent none." }),
    }),
  },
  { $id: 'SuppressedItem' },
);

export const SuppressedQuery = Type.Object({
  type: Type.Optional(
    Type.Unsafe<SuppressionType>({ type: 'string', enum: [...SUPPRESSION_TYPES], description: 'Only the issues suppressed this way.' }),
  ),
  page: PageQuery.properties.page,
});

/** E3: `format` is required; anything but these two is a 422 like any other query value. */
export const ExportQuery = Type.Object({
  format: Type.Unsafe<ExportFormat>({ type: 'string', enum: [...EXPORT_FORMATS], description: 'sarif: SARIF 2.1.0; csv: RFC 4180.' }),
});

/**
 * E3: what the document says of a SARIF export; the full grammar is the OASIS schema, which the
 * tests validate every export against (test/fixtures/sarif/).
 */
const SarifLog = Type.Object(
  {
    $schema: Type.Literal(SARIF_SCHEMA_URI),
    version: Type.Literal('2.1.0'),
    runs: Type.Array(
      Type.Object({
        tool: Type.Object({
          driver: Type.Object({
            name: Type.Literal('Scoreboard'),
            rules: Type.Array(Type.Object({ id: Type.String({ description: 'The analyzer id.' }) }), {
              description: 'The analyzers with issues in the report: id, name, category, help when the client described them.',
            }),
          }),
        }),
        results: Type.Array(
          Type.Object({
            ruleId: Type.String(),
            level: Type.Unsafe({ type: 'string', enum: ['error', 'warning', 'note'] }),
            message: Type.Object({ text: Type.String() }),
            partialFingerprints: Type.Optional(
              Type.Object(
                { [FINGERPRINT_KEY]: Type.String({ pattern: '^[0-9a-f]{32}$' }) },
                { description: "The issue's fingerprint; suppressed issues have none." },
              ),
            ),
            suppressions: Type.Optional(
              Type.Array(
                Type.Object({
                  kind: Type.Unsafe({ type: 'string', enum: ['inSource', 'external'] }),
                  status: Type.Literal('accepted'),
                  justification: Type.Optional(Type.String()),
                }),
                {
                  description:
                    'An issue dismissed in Scoreboard: external, justified by "<status>: <comment>". ' +
                    "An issue the client suppressed: inSource (inline) or external (config, baseline), justified by the client's description.",
                },
              ),
            ),
          }),
          {
            description:
              "One per issue of the report (not the baseline's fixed ones), then one per issue the client suppressed, each with its suppression.",
          },
        ),
      }),
      { minItems: 1, maxItems: 1 },
    ),
  },
  { description: 'A SARIF 2.1.0 log (OASIS) with one run.' },
);

/** E3: the 200 of an export, in its format's media type; a download (`Content-Disposition: attachment`). */
export const ExportResponse = {
  description: "The report's issues, streamed.",
  headers: {
    'Content-Disposition': {
      type: 'string',
      required: true,
      description: 'attachment; filename="scoreboard-{report uuid}.sarif" (or .csv)',
    },
  },
  content: {
    [EXPORT_MEDIA_TYPES.sarif]: { schema: SarifLog },
    // The header names the charset; the key is the media type alone.
    'text/csv': {
      schema: Type.String({
        description:
          'RFC 4180 with CRLF line ends, UTF-8 without BOM; header analyzer_id,analyzer_name,category,severity,message,file,line,fingerprint,change,state ' +
          "(state: the issue's status when the file was made: open, confirmed, accepted, false_positive or wont_fix). " +
          "A field starting with =, +, -, @, tab or CR is prefixed with ' (formula injection).",
      }),
    },
  },
};

export const ReportListQuery = Type.Object({
  branch: Type.Optional(Type.String({ maxLength: 1000, description: "Only this branch's reports; empty: the reports without a branch." })),
  page: PageQuery.properties.page,
});

/** E1.6: `GET /projects/{project}/branches`. */
export const BranchesResponse = Type.Object({
  data: Type.Array(
    Type.Object({
      name: NullableString({ description: 'Null for the reports without a branch.' }),
      report_count: Type.Optional(
        Type.Integer({ minimum: 1, description: 'How many reports the branch has; only with `include=report_count`.' }),
      ),
      latest_report: ReportListItem,
    }),
  ),
});

/** `GET /projects/{project}/pull-requests`: one pull request (reports whose `pull_request` is set) and its latest report. */
export const PullRequestItem = Type.Object(
  {
    pull_request: Type.String({ examples: ['482'], description: 'The number the client sent as `pr_number`.' }),
    latest_report: ReportListItem,
  },
  { $id: 'PullRequestItem' },
);
export type PullRequestItem = Static<typeof PullRequestItem>;

/** E2.1: how many reports a trend has when `limit` is not given. */
export const DEFAULT_TREND_LIMIT = 30;

/** E2.1: `GET /projects/{project}/trend?branch=NAME&limit=N`. */
/** `GET /projects/{project}/branches`: what the dashboard asks for beyond the branch and its latest report. */
export const BranchesQuery = Type.Object({
  include: Type.Optional(
    Type.Literal('report_count', {
      description: "Adds each branch's number of reports (the dashboard opens on the branch with the most).",
    }),
  ),
});

export const TrendQuery = Type.Object({
  include: Type.Optional(
    Type.Literal('commit', { description: "Adds each run's commit to its point (the dashboard's tooltip names it)." }),
  ),
  branch: Type.Optional(
    Type.String({ maxLength: 1000, description: "Only this branch's reports; empty: the reports without a branch. Absent: every branch." }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 365, default: DEFAULT_TREND_LIMIT, description: 'How many of the latest reports.' }),
  ),
});

/** E2.1: one report of a trend. */
export const TrendPoint = Type.Object(
  {
    uuid: Type.String({ format: 'uuid' }),
    analyzed_at: Type.String({ format: 'date-time' }),
    branch: NullableString({ description: 'git_branch of the run.' }),
    commit: Type.Optional(NullableString({ description: 'git_commit of the run; only with `include=commit`.' })),
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    total_issues: Type.Integer(),
    issues_by_severity: IssuesBySeverity,
    new: Nullable<number>('integer', { description: 'New issues against the baseline; null without one.' }),
    fixed: Nullable<number>('integer', { description: "The baseline's issues this report no longer has; null without one." }),
    gate_passed: Type.Unsafe<boolean | null>({
      type: ['boolean', 'null'],
      description: 'The stored gate of the upload; null for reports stored before gates were.',
    }),
  },
  { $id: 'TrendPoint' },
);
export type TrendPoint = Static<typeof TrendPoint>;

/** E2.1: the last `limit` reports, oldest first (D19's order: analyzed_at, then id). */
export const TrendResponse = Type.Object({ data: Type.Array(TrendPoint) });
