/**
 * D24: `repository_url` parses as a WHATWG URL with scheme http or https, a non-empty host, a valid
 * port, and no user name or password; otherwise 422 `The repository url must be a valid URL.`, on
 * create and on update, and nothing is stored.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { expectValidationError } from '../helpers/contract.js';

const it = sharedAppTest({ user: { plan: 'enterprise' }, project: { name: 'Linked', repository_url: 'https://github.com/acme/shop' } })
  .extend(
    'create',
    ({ ctx, user }) =>
      (repository_url: unknown) =>
        ctx.request({
          method: 'POST',
          url: '/api/v1/projects',
          token: user.token,
          body: { name: 'New', framework_version: '11', repository_url },
        }),
  )
  .extend(
    'update',
    ({ ctx, projectId, user }) =>
      (repository_url: unknown) =>
        ctx.request({
          method: 'PUT',
          url: `/api/v1/projects/${projectId}`,
          token: user.token,
          body: { name: 'Linked', framework_version: '11', repository_url },
        }),
  )
  .extend(
    'stored',
    ({ ctx, projectId }) =>
      async () =>
        (await ctx.db.selectFrom('projects').select('repository_url').where('id', '=', projectId).executeTakeFirstOrThrow()).repository_url,
  )
  .extend(
    'projectCount',
    ({ ctx }) =>
      async () =>
        (await ctx.db.selectFrom('projects').select('id').execute()).length,
  );

const INVALID = [
  // The reproductions: no host, a NUL host, a port out of range, credentials.
  'https://:@',
  'https://%00',
  'https://[::1]:99999/',
  'http://user:pass@evil.com@good.com/',
  // Credentials of any kind, even empty ones WHATWG would drop silently.
  'https://user@github.com/acme/shop',
  'https://:secret@github.com/acme/shop',
  'https://:@github.com/acme/shop',
  // Not a host, or no host.
  'https://',
  'http:///path',
  'https://exa mple.com/',
  'https://[::1/',
  'https://github.com:-1/',
  'https://github.com:65536/',
  // Not http(s), or not written as an absolute URL.
  'ftp://example.com/x',
  'javascript:alert(1)',
  'https:github.com/acme/shop',
  'https:\\\\github.com\\acme',
  'github.com/acme/shop',
];

describe('repository_url (D24)', () => {
  it.for(INVALID)('refuses %j on create with 422, and creates nothing', async (url, { create, projectCount }) => {
    const before = await projectCount();
    expectValidationError(await create(url), ['repository_url'], { repository_url: 'The repository url must be a valid URL.' });
    expect(await projectCount()).toBe(before);
  });

  it.for(INVALID)('refuses %j on update with 422, and keeps the stored URL', async (url, { update, stored }) => {
    expectValidationError(await update(url), ['repository_url'], { repository_url: 'The repository url must be a valid URL.' });
    expect(await stored()).toBe('https://github.com/acme/shop');
  });

  it.for([
    'https://github.com/acme/shop',
    'http://gitlab.internal:8080/group/project.git',
    'HTTPS://GitHub.com/acme/shop',
    'https://[::1]:8443/repo',
    'http://127.0.0.1/repo',
    'https://xn--bcher-kva.example/repo',
    'https://github.com/acme/shop?tab=readme#top',
    'https://github.com:65535/acme',
  ])('accepts %j and stores it as given', async (url, { create, update, stored }) => {
    const response = await create(url);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().project.repository_url).toBe(url);
    const updated = await update(url);
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await stored()).toBe(url);
  });
});
