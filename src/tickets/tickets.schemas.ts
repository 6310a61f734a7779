import { type Static, Type } from 'typebox';
import { IssueTicket, TICKET_PROVIDER_NAMES, type TicketProvider } from '../issues/issue-state.schemas.js';
import { Nullable, NullableString, NullableTimestamp } from '../wire/schemas.js';

/** E9.3 and E9.4's HTTP face: a project's tracker, and turning issues into tickets. */

/** At most this many issues become tickets in one request: each is a call to the provider. */
export const BULK_TICKETS_MAX = 50;

const FINGERPRINT = '^[0-9a-f]{32}$';

export const PutTrackerBody = Type.Object(
  {
    connection_id: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
      description:
        "A connection of the project's team, to Jira, Linear, GitHub or GitLab; null unlinks the tracker (the settings stay as they are).",
      examples: ['01934f6e-7c1a-7b3e-9f00-3c5d2e1a4b6c'],
    }),
  },
  { $id: 'PutTrackerBody' },
);
export type PutTrackerBody = Static<typeof PutTrackerBody>;

export const Tracker = Type.Object(
  {
    connection: Type.Union(
      [
        Type.Object({
          id: Type.String({ format: 'uuid' }),
          provider: Type.Unsafe<TicketProvider>({ type: 'string', enum: [...TICKET_PROVIDER_NAMES] }),
          name: Type.String(),
        }),
        Type.Null(),
      ],
      {
        description: 'The connection tickets are created through; null when none is linked.',
      },
    ),
    primary_tracker: Type.Union([Type.String(), Type.Null()], { description: "The project's `primary_tracker` setting." }),
    target: Type.Object(
      { key: NullableString(), name: NullableString() },
      {
        description:
          'Where tickets go, from the settings `ticket_target_project_key` and `_name`: a Jira project key, a Linear team key, GitHub `owner/repo`, a GitLab project path or id.',
      },
    ),
  },
  { $id: 'Tracker' },
);
export type Tracker = Static<typeof Tracker>;
export const TrackerResponse = Type.Object({ data: Tracker });

export const TicketResponse = Type.Object({ data: IssueTicket });

export const BulkTicketsBody = Type.Object(
  {
    fingerprints: Type.Array(Type.String({ pattern: FINGERPRINT }), {
      minItems: 1,
      maxItems: BULK_TICKETS_MAX,
      uniqueItems: true,
      description: `1 to ${BULK_TICKETS_MAX} distinct fingerprints, each held by a report of the project.`,
      examples: [['3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c']],
    }),
  },
  { $id: 'BulkTicketsBody' },
);
export type BulkTicketsBody = Static<typeof BulkTicketsBody>;

export const BulkTicketItem = Type.Object({
  fingerprint: Type.String(),
  created: Type.Boolean({ description: 'False for an issue that had its ticket already (it is answered as it is).' }),
  ticket: IssueTicket,
});
export type BulkTicketItem = Static<typeof BulkTicketItem>;

export const BulkTicketsResponse = Type.Object({
  data: Type.Array(BulkTicketItem, { description: "Each issue's ticket, in the request's order." }),
  message: Type.String({ examples: ['2 tickets created; 1 issue had its ticket already.'] }),
});

/**
 * A call to the tracker made (or to make) because an issue was fixed, in the shape of a webhook's
 * delivery: `event` says which call, a comment on the ticket or its closing.
 */
export const TrackerDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    event: Type.Unsafe<'ticket_comment' | 'ticket_close'>({ type: 'string', enum: ['ticket_comment', 'ticket_close'] }),
    status: Type.Unsafe<'pending' | 'succeeded' | 'failed'>({ type: 'string', enum: ['pending', 'succeeded', 'failed'] }),
    attempts: Type.Integer({ minimum: 0 }),
    response_status: Nullable<number>('integer', { description: "The provider's status at the last attempt; null without an answer." }),
    error: NullableString({ description: "Why the last attempt failed, in the provider's words when it gave some." }),
    next_attempt_at: NullableTimestamp('When the next attempt is due; null once succeeded or failed.'),
    created_at: Type.String({ format: 'date-time' }),
    delivered_at: NullableTimestamp(),
  },
  { $id: 'TrackerDelivery' },
);
export type TrackerDelivery = Static<typeof TrackerDelivery>;
