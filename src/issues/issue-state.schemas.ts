import { type Static, Type } from 'typebox';
import { NullableString, NullableTimestamp } from '../wire/schemas.js';
import { ISSUE_STATUSES, type IssueStatus } from './issue-vocabulary.js';

/**
 * E8.1's shapes: an issue's state as every answer shows it (the report detail, the changes, the
 * project's issue list) and, with the issue as last seen, as the state endpoints answer it. One
 * source for validation, serialisation and the OpenAPI document; the reports feature imports them.
 */

export const IssueStatusSchema = Type.Unsafe<IssueStatus>({ type: 'string', enum: [...ISSUE_STATUSES] });

const Person = Type.Object({ id: Type.Integer(), name: NullableString() });

export const IssueState = Type.Object(
  {
    fingerprint: Type.String({ pattern: '^[0-9a-f]{32}$' }),
    status: Type.Unsafe<IssueStatus>({
      type: 'string',
      enum: [...ISSUE_STATUSES],
      description: '`open` for an issue nobody decided about, and for an acceptance whose `expires_at` has passed.',
    }),
    comment: NullableString(),
    assignee: Type.Union([Person, Type.Null()]),
    expires_at: NullableTimestamp('Only with `accepted`: when the issue is open again.'),
    updated_by: Type.Union([Person, Type.Null()], { description: 'Null for an issue nobody decided about, or once that user is deleted.' }),
    updated_at: NullableTimestamp('Null for an issue nobody decided about.'),
    last_seen_report: Type.Union(
      [Type.Object({ uuid: Type.String({ format: 'uuid' }), analyzed_at: Type.String({ format: 'date-time' }) }), Type.Null()],
      {
        description: 'The newest report holding the issue; null for an issue nobody decided about, or once that report is deleted.',
      },
    ),
    previous_fingerprints: Type.Array(Type.String(), {
      description: 'The fingerprints the issue had before its line was reformatted, oldest first.',
    }),
    ticket: Type.Null({ description: 'The ticket filed for the issue; none yet.' }),
  },
  { $id: 'IssueState' },
);
export type IssueState = Static<typeof IssueState>;

const IssueLocation = Type.Object({
  file: Type.String(),
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  column: Type.Optional(Type.Integer({ minimum: 1 })),
});

/** The issue as last seen: what E8.1's `issue` holds. */
export const SeenIssue = Type.Object({
  analyzer_id: Type.String(),
  analyzer_name: Type.String(),
  category: NullableString(),
  severity: Type.Unsafe<'critical' | 'high' | 'medium' | 'low' | 'info'>({
    type: 'string',
    enum: ['critical', 'high', 'medium', 'low', 'info'],
  }),
  message: Type.String(),
  location: Type.Union([IssueLocation, Type.Null()]),
});

/** E8.1 whole: the state with the issue as last seen (the state endpoints' answers). */
export const TrackedIssue = Type.Object({ ...IssueState.properties, issue: SeenIssue }, { $id: 'TrackedIssue' });
export type TrackedIssue = Static<typeof TrackedIssue>;
