import { type Static, type TSchema, Type } from 'typebox';
import { appJwt, pemBody } from './github-app-jwt.js';

/**
 * E9.1: the six providers a team connects, what each needs and how each is addressed. This table is
 * the one place where a provider's credentials shape, auth headers and "who am I" read are written;
 * everything else (the API, the checks, the tickets) goes through it.
 *
 * `base_url` is the root every API path is appended to, with no trailing slash:
 * - github: the REST root, `https://api.github.com`, or GitHub Enterprise Server's `https://HOST/api/v3`;
 * - gitlab: the v4 root, `https://gitlab.com/api/v4` or `https://HOST/api/v4`;
 * - gitea (and Forgejo): the v1 root, `https://HOST/api/v1` (no default: every instance is self-hosted);
 * - bitbucket: Bitbucket Cloud's `https://api.bitbucket.org/2.0`;
 * - jira: the site, `https://SITE.atlassian.net` or a Data Center URL (the paths carry `/rest/api/N`);
 * - linear: `https://api.linear.app` (the GraphQL endpoint is `/graphql` under it);
 * - github_app (E10.5): GitHub's REST root, as for github; the app signs in as an installation.
 */
export const PROVIDERS = ['github', 'gitlab', 'gitea', 'bitbucket', 'jira', 'linear', 'github_app'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

const secret = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

export const TokenCredentials = Type.Object({ token: secret('An access token.') }, { additionalProperties: false });
export const JiraCloudCredentials = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320, description: 'The Atlassian account email.' }),
    api_token: secret('An Atlassian API token.'),
  },
  { additionalProperties: false },
);
export const LinearCredentials = Type.Object({ api_key: secret('A Linear personal API key.') }, { additionalProperties: false });

/**
 * E10.5: a GitHub App installed on the repositories' account. The ids are digits (GitHub shows them
 * as numbers; a JSON number is taken too); the private key is the PEM GitHub lets the app's owner
 * download (PKCS#1, `BEGIN RSA PRIVATE KEY`), or the same key as PKCS#8.
 */
const GitHubId = (description: string) => Type.String({ minLength: 1, maxLength: 20, pattern: '^[0-9]+$', description });
export const GitHubAppCredentials = Type.Object(
  {
    app_id: GitHubId("The app's id (its settings page: App ID)."),
    private_key: secret("One of the app's private keys, as the PEM file GitHub gave."),
    installation_id: GitHubId('The id of the installation on the account that holds the repositories.'),
  },
  { additionalProperties: false },
);

export type TokenCredentials = Static<typeof TokenCredentials>;
export type GitHubAppCredentials = Static<typeof GitHubAppCredentials>;
export type JiraCloudCredentials = Static<typeof JiraCloudCredentials>;
export type LinearCredentials = Static<typeof LinearCredentials>;
/** Any provider's credentials, as stored (sealed) and opened. */
export type Credentials = TokenCredentials | JiraCloudCredentials | LinearCredentials | GitHubAppCredentials;

/** The one authenticated read of a check: who the credentials belong to. */
export interface CheckRead {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** The name of the account the answer names, for the check's message; null when it names none. */
  accountOf(json: unknown): string | null;
}

export interface ProviderSpec {
  /** null: the connection must give one (self-hosted only). */
  defaultBaseUrl: string | null;
  /** Every shape the provider's credentials may take (Jira: Cloud or Data Center). */
  credentialShapes: readonly TSchema[];
  /**
   * The headers that authenticate a request, exactly as the provider documents them. A GitHub App
   * signs a JSON Web Token for each (at `now`): that takes a promise.
   */
  authHeaders(credentials: Credentials, now: Date): Record<string, string> | Promise<Record<string, string>>;
  /** The secret part of the credentials, whose last four characters are the hint. */
  secretOf(credentials: Credentials): string;
  check(credentials: Credentials): CheckRead;
}

const field = (json: unknown, ...path: string[]): string | null => {
  let value: unknown = json;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' && value !== '' ? value : null;
};

const tokenOf = (credentials: Credentials) => (credentials as TokenCredentials).token;

/** GitHub's headers with a bearer token: a personal one, an app's JWT or an installation's token. */
export const githubHeaders = (bearer: string) => ({
  authorization: `Bearer ${bearer}`,
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
});

/** Jira Cloud authenticates with Basic email:api_token; Data Center with a personal access token (Bearer). */
export const isJiraCloud = (credentials: Credentials): credentials is JiraCloudCredentials => 'api_token' in credentials;

export const PROVIDER_SPECS: Record<Provider, ProviderSpec> = {
  github: {
    defaultBaseUrl: 'https://api.github.com',
    credentialShapes: [TokenCredentials],
    authHeaders: (c) => githubHeaders(tokenOf(c)),
    secretOf: tokenOf,
    check: () => ({ method: 'GET', path: '/user', accountOf: (json) => field(json, 'login') }),
  },
  gitlab: {
    defaultBaseUrl: 'https://gitlab.com/api/v4',
    credentialShapes: [TokenCredentials],
    authHeaders: (c) => ({ 'private-token': tokenOf(c) }),
    secretOf: tokenOf,
    check: () => ({ method: 'GET', path: '/user', accountOf: (json) => field(json, 'username') }),
  },
  gitea: {
    defaultBaseUrl: null,
    credentialShapes: [TokenCredentials],
    authHeaders: (c) => ({ authorization: `token ${tokenOf(c)}` }),
    secretOf: tokenOf,
    check: () => ({ method: 'GET', path: '/user', accountOf: (json) => field(json, 'login') }),
  },
  bitbucket: {
    defaultBaseUrl: 'https://api.bitbucket.org/2.0',
    credentialShapes: [TokenCredentials],
    authHeaders: (c) => ({ authorization: `Bearer ${tokenOf(c)}` }),
    secretOf: tokenOf,
    check: () => ({ method: 'GET', path: '/user', accountOf: (json) => field(json, 'display_name') ?? field(json, 'username') }),
  },
  jira: {
    defaultBaseUrl: null,
    credentialShapes: [JiraCloudCredentials, TokenCredentials],
    authHeaders: (c) =>
      isJiraCloud(c)
        ? { authorization: `Basic ${Buffer.from(`${c.email}:${c.api_token}`, 'utf8').toString('base64')}` }
        : { authorization: `Bearer ${tokenOf(c)}` },
    secretOf: (c) => (isJiraCloud(c) ? c.api_token : tokenOf(c)),
    check: (c) => ({
      method: 'GET',
      path: isJiraCloud(c) ? '/rest/api/3/myself' : '/rest/api/2/myself',
      accountOf: (json) => field(json, 'displayName') ?? field(json, 'emailAddress') ?? field(json, 'name'),
    }),
  },
  linear: {
    defaultBaseUrl: 'https://api.linear.app',
    credentialShapes: [LinearCredentials],
    // Linear's personal API keys go in Authorization as they are, with no scheme (OAuth tokens take Bearer).
    authHeaders: (c) => ({ authorization: (c as LinearCredentials).api_key }),
    secretOf: (c) => (c as LinearCredentials).api_key,
    check: () => ({
      method: 'POST',
      path: '/graphql',
      body: { query: '{ viewer { id name } }' },
      accountOf: (json) => field(json, 'data', 'viewer', 'name'),
    }),
  },
  github_app: {
    defaultBaseUrl: 'https://api.github.com',
    credentialShapes: [GitHubAppCredentials],
    // As the app itself: only its own endpoints (/app/...) take this; repositories take an installation's token (github-app.ts).
    authHeaders: async (c, now) => githubHeaders(await appJwt(c as GitHubAppCredentials, now)),
    secretOf: (c) => pemBody((c as GitHubAppCredentials).private_key),
    check: (c) => ({
      method: 'GET',
      path: `/app/installations/${encodeURIComponent((c as GitHubAppCredentials).installation_id)}`,
      accountOf: (json) => field(json, 'account', 'login'),
    }),
  },
};

/** The last four characters of the secret: all an answer shows of the credentials. */
export function credentialsHint(provider: Provider, credentials: Credentials): string {
  return PROVIDER_SPECS[provider].secretOf(credentials).slice(-4);
}

/** The secret and every auth header value carrying it, for scrubbing them out of anything said about a call. */
export function credentialStrings(provider: Provider, credentials: Credentials): string[] {
  const spec = PROVIDER_SPECS[provider];
  // A GitHub App's headers carry a JWT signed per call, not the key: the key itself is scrubbed.
  const headers = provider === 'github_app' ? {} : (spec.authHeaders(credentials, new Date()) as Record<string, string>);
  const whole = provider === 'github_app' ? [(credentials as GitHubAppCredentials).private_key] : [];
  return [spec.secretOf(credentials), ...whole, headers.authorization, headers['private-token']].filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
}
