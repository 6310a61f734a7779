import { type Static, Type } from 'typebox';
import { NullableTimestamp } from '../wire/schemas.js';
import { PROVIDERS, type Provider } from './providers.js';

export const CONNECTION_NAME_MAX = 100;
export const BASE_URL_MAX = 2048;
export const CREDENTIAL_MAX = 4096;

const ProviderName = Type.Unsafe<Provider>({ type: 'string', enum: [...PROVIDERS] });

const BaseUrl = Type.String({
  maxLength: BASE_URL_MAX,
  description:
    "The root of the provider's API every path is appended to (the provider's default when omitted; required for " +
    'gitea, `https://HOST/api/v1`, and jira, the site `https://SITE.atlassian.net` or a Data Center URL). An `http` or ' +
    '`https` URL with no user info, query or fragment; a host that is `localhost` or a private or loopback IP address is ' +
    'a 422 (unless the server sets WEBHOOK_ALLOW_PRIVATE_NETWORKS).',
  examples: ['https://gitlab.example.com/api/v4'],
});

/**
 * The provider's credentials, write-only. Their fields depend on the provider (anything missing or
 * extra is a 422 naming the field), so the schema only says they are strings.
 */
const Credentials = Type.Record(Type.String(), Type.Union([Type.String({ maxLength: CREDENTIAL_MAX }), Type.Integer()]), {
  description:
    'Write-only, never shown again. github, gitlab, gitea, bitbucket: `{token}`; jira: `{email, api_token}` (Cloud) or ' +
    '`{token}` (Data Center personal access token); linear: `{api_key}`; github_app: `{app_id, private_key, installation_id}` ' +
    '(the ids as digits, in a string or a number; the private key as the PEM GitHub gave). Any other value is a string.',
  examples: [{ token: 'glpat-xxxxxxxxxxxxxxxxxxxx' }],
});

/** A team's connection to a provider; never its credentials. */
export const Connection = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    provider: ProviderName,
    name: Type.String(),
    base_url: Type.String({ description: 'As stored: the default when none was given, with no trailing slash.' }),
    credentials_hint: Type.String({
      description: 'The last four characters of the secret (token, API token or API key); nothing else of the credentials is ever shown.',
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    last_used_at: NullableTimestamp('When a call to the provider last used it (a check, a ticket).'),
  },
  { $id: 'Connection' },
);
export type Connection = Static<typeof Connection>;

const Name = Type.String({
  minLength: 1,
  maxLength: CONNECTION_NAME_MAX,
  description: 'A name for people.',
  examples: ['GitLab (company)'],
});

export const CreateConnectionBody = Type.Object({
  provider: ProviderName,
  name: Name,
  base_url: Type.Optional(BaseUrl),
  credentials: Credentials,
});
export type CreateConnectionBody = Static<typeof CreateConnectionBody>;

export const UpdateConnectionBody = Type.Object({
  name: Type.Optional(Name),
  base_url: Type.Optional(BaseUrl),
  credentials: Type.Optional(Credentials),
});
export type UpdateConnectionBody = Static<typeof UpdateConnectionBody>;

export const ConnectionResponse = Type.Object({ data: Connection });
export const ConnectionListResponse = Type.Object({ data: Type.Array(Connection) });

export const CheckResult = Type.Object(
  {
    ok: Type.Boolean({ description: 'Whether the provider accepted the credentials.' }),
    message: Type.String({
      description: "Who the credentials belong to, or the provider's own error text (or what went wrong on the way).",
    }),
  },
  { $id: 'ConnectionCheck' },
);
export type CheckResult = Static<typeof CheckResult>;
export const CheckResponse = Type.Object({ data: CheckResult });

export const TeamConnectionsParams = Type.Object({
  team: Type.Unsafe<string>({ type: 'integer', minimum: 1, description: 'Team id. Anything else is a 404.' }),
});
export const ConnectionParams = Type.Object({
  team: Type.Unsafe<string>({ type: 'integer', minimum: 1, description: 'Team id. Anything else is a 404.' }),
  connection: Type.String({ format: 'uuid', description: 'The connection id (UUID). Anything else is a 404.' }),
});
