import { Type, type Static } from 'typebox';
import { Nullable, NullableString, NullableTimestamp } from '../http/schemas.js';

export const IssuesBySeverity = Type.Object({
  critical: Type.Integer(),
  high: Type.Integer(),
  medium: Type.Integer(),
  low: Type.Integer(),
  info: Type.Integer(),
});

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
