import { Type, type Static } from 'typebox';
import { ABILITIES } from '../auth/abilities.js';
import { NullableString, NullableTimestamp } from '../wire/schemas.js';

export const TOKEN_NAME_MAX = 255;

/** api-v1.md 2.5: token metadata; never the plain text nor the hash. */
export const TokenMetadata = Type.Object(
  {
    id: Type.Integer({ examples: [1] }),
    name: Type.String({ examples: ['CI pipeline'] }),
    abilities: Type.Array(Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]), {
      examples: [['read', 'write']],
    }),
    last_used_at: NullableTimestamp('Updated at most once a minute.'),
    expires_at: NullableTimestamp('Null means no expiry.'),
    created_at: NullableTimestamp(),
  },
  { $id: 'TokenMetadata' },
);
export type TokenMetadata = Static<typeof TokenMetadata>;

export const TokenListResponse = Type.Object({ data: Type.Array(TokenMetadata) });

export const CreateTokenBody = Type.Object(
  {
    name: Type.String({ maxLength: TOKEN_NAME_MAX, examples: ['CI pipeline'] }),
    abilities: Type.Array(Type.Unsafe<(typeof ABILITIES)[number]>({ type: 'string', enum: [...ABILITIES] }), {
      minItems: 1,
      examples: [['read']],
    }),
    expires_at: Type.Optional(
      NullableString({
        description: 'ISO 8601 date-time with offset, or YYYY-MM-DD (00:00 UTC); must be in the future.',
        examples: ['2027-01-01'],
      }),
    ),
  },
  { $id: 'CreateTokenBody' },
);
export type CreateTokenBody = Static<typeof CreateTokenBody>;

export const CreateTokenResponse = Type.Object({
  token: TokenMetadata,
  plain_text_token: Type.String({
    pattern: '^service_[A-Za-z0-9]{40}[0-9a-f]{8}$',
    description: 'Shown once. Send it as `Authorization: Bearer <plain_text_token>`.',
  }),
  message: Type.String(),
});

export const TokenParams = Type.Object({
  // Documented as an integer; path parameters reach the route unvalidated (as text) so that anything
  // else is a 404 (D9), which the token lookup decides.
  token: Type.Unsafe<string>({
    type: 'integer',
    minimum: 1,
    description: 'Integer id of a personal access token. Anything else is a 404.',
  }),
});
