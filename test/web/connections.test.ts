import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkedCredentials, defaultBaseUrl } from '../../src/connections/connection-input.js';
import { PROVIDER_SPECS, PROVIDERS as SERVICE_PROVIDERS } from '../../src/connections/providers.js';
import { TICKET_PROVIDERS as SERVICE_TICKET_PROVIDERS } from '../../src/projects/settings.js';
import { BULK_TICKETS_MAX as SERVICE_BULK_MAX } from '../../src/tickets/tickets.schemas.js';
import {
  BULK_TICKETS_MAX,
  baseUrlPlaceholder,
  bulkTicketsLabel,
  CREDENTIAL_KINDS,
  connectionBody,
  credentialKind,
  DEFAULT_BASE_URLS,
  isSecret,
  isTicketProvider,
  PROVIDER_LABELS,
  PROVIDERS,
  TICKET_PROVIDERS,
} from '../../web/src/lib/connections.js';

/**
 * E9.6's form logic: the dashboard's provider tables are the service's (the bundle keeps its own
 * copy, without the schema library), E10.5's GitHub App included, the add form's values become the
 * POST's body, and a selection of more than 50 issues is said before anything is sent.
 */

/** A GitHub App's private key as GitHub hands it out: an RSA key in PKCS#1 PEM, over several lines. */
const APP_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;

/** What the form would hold for each kind of input: a value the service takes. */
const typed = { password: 'secret-1234', textarea: APP_KEY, email: 'ada@example.com', digits: '123456' } as const;

describe('the dashboard’s providers are the service’s', () => {
  it('names the same providers, ticket providers and bulk limit', () => {
    expect(PROVIDERS).toEqual(SERVICE_PROVIDERS);
    expect(TICKET_PROVIDERS).toEqual(SERVICE_TICKET_PROVIDERS);
    expect(BULK_TICKETS_MAX).toBe(SERVICE_BULK_MAX);
  });

  it('shows each provider’s default base URL, and an example where there is none', () => {
    for (const provider of PROVIDERS) {
      expect(DEFAULT_BASE_URLS[provider], provider).toBe(PROVIDER_SPECS[provider].defaultBaseUrl);
      if (DEFAULT_BASE_URLS[provider] !== null) expect(baseUrlPlaceholder(provider)).toBe(defaultBaseUrl(provider));
      else expect(() => defaultBaseUrl(provider)).toThrow();
    }
    expect(baseUrlPlaceholder('jira')).toBe('https://your-site.atlassian.net');
    expect(baseUrlPlaceholder('gitea')).toBe('https://gitea.example.com/api/v1');
  });

  it('asks for exactly the credentials the service accepts, one form per shape (Jira: Cloud or Data Center)', () => {
    for (const provider of PROVIDERS) {
      expect(CREDENTIAL_KINDS[provider], provider).toHaveLength(PROVIDER_SPECS[provider].credentialShapes.length);
      for (const kind of CREDENTIAL_KINDS[provider]) {
        const given = Object.fromEntries(kind.fields.map((field) => [field.name, typed[field.input]]));
        expect(checkedCredentials(provider, given), `${provider} ${kind.id}`).toEqual(given);
      }
    }
  });

  it('types every secret into a password input, a GitHub App’s key into a textarea; only Jira Cloud’s email and the app’s ids are in the clear', () => {
    const inputs = PROVIDERS.flatMap((provider) =>
      CREDENTIAL_KINDS[provider].flatMap((kind) => kind.fields.map((field) => `${provider}.${field.name}: ${field.input}`)),
    );
    expect(inputs.filter((input) => !input.endsWith(': password'))).toEqual([
      'jira.email: email',
      'github_app.app_id: digits',
      'github_app.private_key: textarea',
      'github_app.installation_id: digits',
    ]);
    const secrets = PROVIDERS.flatMap((provider) =>
      CREDENTIAL_KINDS[provider].flatMap((kind) => kind.fields.filter(isSecret).map((field) => field.input)),
    );
    expect(new Set(secrets)).toEqual(new Set(['password', 'textarea']));
  });

  it('calls the GitHub App by its name, on GitHub’s API', () => {
    expect(PROVIDER_LABELS.github_app).toBe('GitHub App');
    expect(baseUrlPlaceholder('github_app')).toBe('https://api.github.com');
  });
});

describe('the add form’s body', () => {
  const values = (form: Record<string, string>) => (name: string) => form[name] ?? null;

  it('leaves an empty base URL out (the provider’s default) and sends the token as typed', () => {
    expect(connectionBody(values({ provider: 'gitlab', name: ' GitLab ', base_url: ' ', 'credentials.token': ' glpat-1234 ' }))).toEqual({
      provider: 'gitlab',
      name: 'GitLab',
      credentials: { token: ' glpat-1234 ' },
    });
  });

  it('sends the chosen Jira kind’s fields only: Cloud’s email (trimmed) and API token, or Data Center’s token', () => {
    const form = {
      provider: 'jira',
      name: 'Jira',
      base_url: 'https://acme.atlassian.net',
      'credentials.email': ' ada@example.com ',
      'credentials.api_token': 'ATATT-5678',
      'credentials.token': 'left-over',
    };
    expect(connectionBody(values({ ...form, credential_kind: 'cloud' }))).toEqual({
      provider: 'jira',
      name: 'Jira',
      base_url: 'https://acme.atlassian.net',
      credentials: { email: 'ada@example.com', api_token: 'ATATT-5678' },
    });
    expect(connectionBody(values({ ...form, credential_kind: 'data-center' })).credentials).toEqual({ token: 'left-over' });
    expect(credentialKind('jira', undefined).id).toBe('cloud');
  });

  it('sends a GitHub App’s key as typed, its lines kept, and its ids trimmed', () => {
    const body = connectionBody(
      values({
        provider: 'github_app',
        name: 'Scoreboard App',
        'credentials.app_id': ' 123456 ',
        'credentials.private_key': APP_KEY,
        'credentials.installation_id': '7890123\n',
        'credentials.token': 'left-over',
      }),
    );
    expect(body).toEqual({
      provider: 'github_app',
      name: 'Scoreboard App',
      credentials: { app_id: '123456', private_key: APP_KEY, installation_id: '7890123' },
    });
    expect(body.credentials.private_key?.split('\n').length ?? 0).toBeGreaterThan(10);
    expect(checkedCredentials('github_app', body.credentials)).toEqual(body.credentials);
  });

  it('sends Linear’s api_key', () => {
    expect(connectionBody(values({ provider: 'linear', name: 'Linear', 'credentials.api_key': 'lin_api_9' })).credentials).toEqual({
      api_key: 'lin_api_9',
    });
  });
});

describe('tickets', () => {
  it('knows the ticket providers', () => {
    expect(['jira', 'linear', 'github', 'gitlab'].every(isTicketProvider)).toBe(true);
    expect([null, undefined, 'gitea', 'bitbucket', 'internal'].some(isTicketProvider)).toBe(false);
  });

  it('creates at most 50 at once, and says so when more are selected', () => {
    expect(bulkTicketsLabel(1)).toEqual({ label: 'Create a ticket for 1 selected', tooMany: null });
    expect(bulkTicketsLabel(50)).toEqual({ label: 'Create tickets for 50 selected', tooMany: null });
    expect(bulkTicketsLabel(51).tooMany).toBe('At most 50 tickets at once: 51 issues are selected. Clear some and try again.');
  });
});
