/**
 * E9.6: what the dashboard needs to know about E9.1's providers (and E10.5's GitHub App) to offer
 * the right form (the credentials each takes, its default base URL) and about E9.3/E9.4's tickets
 * (which providers have them, at most how many at once). Free of Preact so it is unit-tested; the
 * test holds these tables against the service's own (src/connections/providers.ts and
 * connection-input.ts, which the bundle does not import: they bring the schema library along).
 */

export const PROVIDERS = ['github', 'gitlab', 'gitea', 'bitbucket', 'jira', 'linear', 'github_app'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** D14's ticket providers: the connections a project may link as its tracker. */
export const TICKET_PROVIDERS = ['jira', 'linear', 'github', 'gitlab'] as const;
export type TicketProvider = (typeof TICKET_PROVIDERS)[number];

/** E9.4: at most this many issues become tickets in one request. */
export const BULK_TICKETS_MAX = 50;

export const PROVIDER_LABELS: Record<Provider, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  gitea: 'Gitea / Forgejo',
  bitbucket: 'Bitbucket Cloud',
  jira: 'Jira',
  linear: 'Linear',
  github_app: 'GitHub App',
};

/** The base URL used when none is given; null: the connection must give one (self-hosted only). */
export const DEFAULT_BASE_URLS: Record<Provider, string | null> = {
  github: 'https://api.github.com',
  gitlab: 'https://gitlab.com/api/v4',
  gitea: null,
  bitbucket: 'https://api.bitbucket.org/2.0',
  jira: null,
  linear: 'https://api.linear.app',
  github_app: 'https://api.github.com',
};

/** What the base URL field shows while empty: the default, or an example of what to give. */
export function baseUrlPlaceholder(provider: Provider): string {
  return DEFAULT_BASE_URLS[provider] ?? (provider === 'gitea' ? 'https://gitea.example.com/api/v1' : 'https://your-site.atlassian.net');
}

/** One credential field of the add form: its API name (under `credentials.`), label and kind of input. */
export interface CredentialField {
  name: string;
  label: string;
  /**
   * How it is typed. A secret goes into a password input, or a textarea when it spans lines (a
   * GitHub App's PEM key), and is sent as typed; an email or an id is no secret: typed in the clear, trimmed.
   */
  input: 'password' | 'textarea' | 'email' | 'digits';
  /** What to give, when the label alone does not say where to find it. */
  hint?: string;
}

/** Whether the field holds a secret: stored sealed, never shown again, sent untrimmed. */
export const isSecret = (field: CredentialField) => field.input === 'password' || field.input === 'textarea';

/** A way a provider authenticates; Jira has two (Cloud's email and API token, Data Center's personal access token). */
export interface CredentialKind {
  id: string;
  label: string;
  fields: readonly CredentialField[];
}

const TOKEN: CredentialKind = { id: 'token', label: 'Access token', fields: [{ name: 'token', label: 'Access token', input: 'password' }] };

export const CREDENTIAL_KINDS: Record<Provider, readonly CredentialKind[]> = {
  github: [TOKEN],
  gitlab: [TOKEN],
  gitea: [TOKEN],
  bitbucket: [TOKEN],
  jira: [
    {
      id: 'cloud',
      label: 'Jira Cloud: account email and API token',
      fields: [
        { name: 'email', label: 'Atlassian account email', input: 'email' },
        { name: 'api_token', label: 'API token', input: 'password' },
      ],
    },
    {
      id: 'data-center',
      label: 'Jira Data Center: personal access token',
      fields: [{ name: 'token', label: 'Personal access token', input: 'password' }],
    },
  ],
  linear: [{ id: 'api_key', label: 'Personal API key', fields: [{ name: 'api_key', label: 'API key', input: 'password' }] }],
  github_app: [
    {
      id: 'app',
      label: 'GitHub App',
      fields: [
        { name: 'app_id', label: 'App ID', input: 'digits', hint: 'Digits: shown as “App ID” on the app’s settings page.' },
        {
          name: 'private_key',
          label: 'Private key',
          input: 'textarea',
          hint: 'The whole .pem file the app’s settings page let you download, BEGIN and END lines included.',
        },
        {
          name: 'installation_id',
          label: 'Installation ID',
          input: 'digits',
          hint: 'Digits: the end of the installation’s settings address (…/settings/installations/ID).',
        },
      ],
    },
  ],
};

export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

export function isTicketProvider(value: string | null | undefined): value is TicketProvider {
  return value !== null && value !== undefined && (TICKET_PROVIDERS as readonly string[]).includes(value);
}

/** The provider's credential kind named `id`, else its first. */
export function credentialKind(provider: Provider, id: string | null | undefined): CredentialKind {
  const kinds = CREDENTIAL_KINDS[provider];
  return kinds.find((kind) => kind.id === id) ?? (kinds[0] as CredentialKind);
}

/**
 * The POST's body from the add form's values (`provider`, `name`, `base_url`, `credential_kind`,
 * `credentials.<field>`): an empty base URL is left out (the provider's default), the credentials
 * are the chosen kind's fields as typed (a token is never trimmed: the service says what is wrong with it).
 */
export function connectionBody(values: (name: string) => string | null): {
  provider: Provider;
  name: string;
  base_url?: string;
  credentials: Record<string, string>;
} {
  const given = values('provider') ?? '';
  const provider: Provider = isProvider(given) ? given : 'github';
  const kind = credentialKind(provider, values('credential_kind'));
  const baseUrl = (values('base_url') ?? '').trim();
  const credentials: Record<string, string> = {};
  for (const field of kind.fields) {
    const value = values(`credentials.${field.name}`) ?? '';
    credentials[field.name] = isSecret(field) ? value : value.trim();
  }
  return { provider, name: (values('name') ?? '').trim(), ...(baseUrl === '' ? {} : { base_url: baseUrl }), credentials };
}

/**
 * What the selection's "Create tickets" says, and whether it may be sent: more than 50 issues is
 * said before anything is sent (the service would refuse the whole request).
 */
export function bulkTicketsLabel(count: number): { label: string; tooMany: string | null } {
  if (count > BULK_TICKETS_MAX) {
    return {
      label: `Create tickets for ${count} selected`,
      tooMany: `At most ${BULK_TICKETS_MAX} tickets at once: ${count} issues are selected. Clear some and try again.`,
    };
  }
  return { label: count === 1 ? 'Create a ticket for 1 selected' : `Create tickets for ${count} selected`, tooMany: null };
}
