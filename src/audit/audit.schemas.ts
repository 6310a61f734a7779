import { Type, type Static } from 'typebox';
import { PageQuery, Paginated } from '../wire/pagination.js';
import { NullableString, NullableTimestamp } from '../wire/schemas.js';
import { AUDIT_ACTIONS } from './audit-actions.js';

const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

/** E5's audit event. */
export const AuditEvent = Type.Object(
  {
    id: Type.Integer(),
    action: Type.String({ examples: ['member.role_changed'] }),
    actor: Type.Object({
      type: Type.Union([Type.Literal('user'), Type.Literal('operator')]),
      id: NullableInteger,
      email: NullableString(),
      token_id: Type.Unsafe<number | null>({
        type: ['integer', 'null'],
        description: 'The personal access token the change was made with.',
      }),
    }),
    target: Type.Object({
      type: Type.String({ examples: ['member'] }),
      id: NullableString({ description: 'An id as the API names it (a project or report uuid, or an integer as text).' }),
    }),
    team_id: NullableInteger,
    ip: NullableString(),
    user_agent: NullableString(),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What changed: `{field: {old, new}}` for updates, the fields of what was made or removed otherwise. Never a secret.',
    }),
    created_at: NullableTimestamp(),
  },
  { $id: 'AuditEvent' },
);
export type AuditEvent = Static<typeof AuditEvent>;

export const AuditEventListResponse = Paginated(AuditEvent);

export const AuditQuery = Type.Object({
  ...PageQuery.properties,
  action: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...AUDIT_ACTIONS], description: 'Only events of this action.' })),
});

export const TeamAuditParams = Type.Object({
  team: Type.Unsafe<string>({ type: 'integer', minimum: 1, description: 'Team id. Anything else is a 404.' }),
});
