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
  isTicketProvider,
  PROVIDERS,
  TICKET_PROVIDERS,
} from '../../web/src/lib/connections.js';

/**
 * E9.6's form logic: the dashboard's provider tables are the service's (the bundle keeps its own
 * copy, without the schema library), the add form's values become the POST's body, and a selection
 * of more than 50 issues is said before anything is sent.
 */
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
        const given = Object.fromEntries(kind.fields.map((field) => [field.name, field.secret ? 'secret-1234' : 'ada@example.com']));
        expect(checkedCredentials(provider, given), `${provider} ${kind.id}`).toEqual(given);
      }
    }
  });

  it('types every secret into a password input; only Jira Cloud’s email is in the clear', () => {
    const clear = PROVIDERS.flatMap((provider) =>
      CREDENTIAL_KINDS[provider].flatMap((kind) =>
        kind.fields.filter((field) => !field.secret).map((field) => `${provider}.${field.name}`),
      ),
    );
    expect(clear).toEqual(['jira.email']);
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
