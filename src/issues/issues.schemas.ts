import { type Static, Type } from 'typebox';
import { Paginated } from '../wire/pagination.js';
import { Nullable, NullableString } from '../wire/schemas.js';
import { TrackedIssue } from './issue-state.schemas.js';
import { BULK_MAX, COMMENT_MAX, EXPIRY_MAX_DAYS, ISSUE_STATUSES, type IssueStatus } from './issue-vocabulary.js';

/**
 * The HTTP face of E8.2's changes and of "assigned to me": bodies, answers and path parameters.
 * The state itself (E8.1) is issue-state.schemas.ts's.
 */

const FINGERPRINT = '^[0-9a-f]{32}$';

/** Path ids: documented only (anything else is a 404, decided by the lookups). */
export const IssueParams = Type.Object({
  project: Type.String({ format: 'uuid', description: 'The project id (UUID). Anything else is a 404.' }),
  fingerprint: Type.String({
    pattern: FINGERPRINT,
    description:
      "The issue's fingerprint: 32 lowercase hexadecimal characters. Anything else, or one no report of the project holds, is a 404.",
  }),
});

/** What a decision says, in a single change and in a bulk one. */
const decision = {
  status: Type.Unsafe<IssueStatus>({
    type: 'string',
    enum: [...ISSUE_STATUSES],
    description: '`accepted`, `false_positive` and `wont_fix` dismiss the issue: the gate leaves it out while the dismissal holds.',
    examples: ['false_positive'],
  }),
  comment: Type.Optional(
    NullableString({
      minLength: 1,
      maxLength: COMMENT_MAX,
      description: `Why (1 to ${COMMENT_MAX} characters, trimmed). Required for a dismissal; omitted or null clears it.`,
      examples: ['The input is cast to an integer two lines above.'],
    }),
  ),
  assignee_id: Type.Optional(
    Nullable<number>('integer', {
      description: "A member of the project's team (any role), or null for nobody. Omitted: nobody.",
      examples: [42],
    }),
  ),
  expires_at: Type.Optional(
    NullableString({
      maxLength: 64,
      description:
        `Only with \`accepted\`: when the acceptance ends and the issue reads \`open\` again. An ISO 8601 date-time with offset, ` +
        `or YYYY-MM-DD (00:00 UTC); in the future, at most ${EXPIRY_MAX_DAYS} days ahead. Omitted or null: it does not expire.`,
      examples: ['2027-03-01'],
    }),
  ),
};

export const UpdateIssueBody = Type.Object(decision, {
  $id: 'UpdateIssueBody',
  description: 'The whole decision: a field left out is cleared (it is not kept from before).',
});
export type UpdateIssueBody = Static<typeof UpdateIssueBody>;

export const BulkIssuesBody = Type.Object(
  {
    fingerprints: Type.Array(Type.String({ pattern: FINGERPRINT }), {
      minItems: 1,
      maxItems: BULK_MAX,
      uniqueItems: true,
      description: `1 to ${BULK_MAX} distinct fingerprints, each held by a report of the project.`,
      examples: [['3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c']],
    }),
    ...decision,
  },
  { $id: 'BulkIssuesBody', description: 'One decision for every listed issue; all of them change, or none.' },
);
export type BulkIssuesBody = Static<typeof BulkIssuesBody>;

export const TrackedIssueResponse = Type.Object({ data: TrackedIssue });

export const BulkIssuesResponse = Type.Object({
  data: Type.Array(TrackedIssue, { description: "The issues' new states, in the request's order." }),
  message: Type.String({ examples: ['3 issues updated.'] }),
});

/** "Assigned to me": the state, with the issue as last seen and the project it belongs to. */
export const AssignedIssue = Type.Object(
  {
    ...TrackedIssue.properties,
    project: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }),
  },
  { $id: 'AssignedIssue' },
);
export type AssignedIssue = Static<typeof AssignedIssue>;

export const AssignedIssuesResponse = Paginated(AssignedIssue);
