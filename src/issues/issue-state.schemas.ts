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

/** The ticket providers an issue's ticket may live at (D14's, besides `internal`). */
export const TICKET_PROVIDER_NAMES = ['jira', 'linear', 'github', 'gitlab'] as const;
export type TicketProvider = (typeof TICKET_PROVIDER_NAMES)[number];

/** The ticket an issue was turned into, as every answer showing it says it (tickets/). */
export const IssueTicket = Type.Object(
  {
    provider: Type.Unsafe<TicketProvider>({ type: 'string', enum: [...TICKET_PROVIDER_NAMES] }),
    key: Type.String({ description: 'The ticket as people name it: `SHOP-12`, `ENG-7`, `owner/repo#42`, `group/project#7`.' }),
    url: Type.String({ description: "The ticket's page at its provider." }),
    created_at: Type.String({ format: 'date-time' }),
    created_by: Type.Union([Person, Type.Null()], { description: 'Null once that user is deleted.' }),
    closed_at: NullableTimestamp('When Scoreboard closed the ticket (a later report fixed the issue); null while it is open.'),
  },
  { $id: 'IssueTicket' },
);
export type IssueTicket = Static<typeof IssueTicket>;

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
    ticket: Type.Union([IssueTicket, Type.Null()], { description: 'The ticket the issue was turned into; null when it has none.' }),
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
