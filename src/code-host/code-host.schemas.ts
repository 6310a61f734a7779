import { type Static, Type } from 'typebox';
import { Nullable, NullableString, NullableTimestamp } from '../wire/schemas.js';
import { CODE_HOST_PROVIDERS, type CodeHostProvider, REPOSITORY_MAX } from './repository-names.js';

/** E10.1 and E10.4's HTTP face: a project's code host, and the calls made to it. */

export const PutCodeHostBody = Type.Object(
  {
    connection_id: Type.String({
      maxLength: 100,
      description: "A connection of the project's team to GitHub (a token or a GitHub App), GitLab, Gitea or Bitbucket.",
      examples: ['01934f6e-7c1a-7b3e-9f00-3c5d2e1a4b6c'],
    }),
    repository: Type.String({
      minLength: 1,
      maxLength: REPOSITORY_MAX,
      description:
        'The repository as the host names it: `owner/repo` (GitHub, Gitea), a project path `group/project` or a numeric id (GitLab), ' +
        '`workspace/repo_slug` (Bitbucket).',
      examples: ['acme/shop'],
    }),
    commit_status: Type.Optional(
      Type.Boolean({ default: true, description: 'Set a status (a check run for a GitHub App) on every analysed commit. Default true.' }),
    ),
    pull_request_comment: Type.Optional(
      Type.Boolean({ default: true, description: "Keep one comment current on each pull request's conversation. Default true." }),
    ),
  },
  { $id: 'PutCodeHostBody' },
);
export type PutCodeHostBody = Static<typeof PutCodeHostBody>;

export const CodeHost = Type.Object(
  {
    connection: Type.Object(
      {
        id: Type.String({ format: 'uuid' }),
        provider: Type.Unsafe<CodeHostProvider>({ type: 'string', enum: [...CODE_HOST_PROVIDERS] }),
        name: Type.String(),
      },
      { description: 'The connection the calls are made through.' },
    ),
    repository: Type.String(),
    commit_status: Type.Boolean(),
    pull_request_comment: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'CodeHost' },
);
export type CodeHost = Static<typeof CodeHost>;
export const CodeHostResponse = Type.Object({ data: CodeHost });

export const CODE_HOST_EVENTS = ['commit_status', 'pull_request_comment'] as const;
export type CodeHostEvent = (typeof CODE_HOST_EVENTS)[number];

/**
 * A call to the code host made (or to make) for a report, in the shape of a webhook's delivery:
 * `event` says which, a commit's status (a check run for a GitHub App) or the pull request's comment.
 */
export const CodeHostDelivery = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    event: Type.Unsafe<CodeHostEvent>({ type: 'string', enum: [...CODE_HOST_EVENTS] }),
    status: Type.Unsafe<'pending' | 'succeeded' | 'failed'>({ type: 'string', enum: ['pending', 'succeeded', 'failed'] }),
    attempts: Type.Integer({ minimum: 0 }),
    response_status: Nullable<number>('integer', {
      description: "The host's status at the last attempt; null without an answer (or when nothing had to be sent).",
    }),
    error: NullableString({ description: "Why the last attempt failed, in the host's words when it gave some." }),
    next_attempt_at: NullableTimestamp('When the next attempt is due; null once succeeded or failed.'),
    created_at: Type.String({ format: 'date-time' }),
    delivered_at: NullableTimestamp(),
  },
  { $id: 'CodeHostDelivery' },
);
export type CodeHostDelivery = Static<typeof CodeHostDelivery>;
