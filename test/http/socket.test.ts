/**
 * The app over a real TCP socket (not inject): headers survive the wire and D16 links use the
 * request's real host and port.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { JSON_UTF8, PROJECT_API_TOKEN, UNAUTHENTICATED } from '../helpers/contract.js';
import { listenOnLoopback } from '../helpers/test-app.js';

const it = sharedAppTest().extend('auth', ({ user }) => () => ({ authorization: `Bearer ${user.token}`, accept: 'application/json' }));

let base: string;
it.beforeAll(async ({ ctx }) => {
  base = `http://127.0.0.1:${await listenOnLoopback(ctx)}`;
});

describe('over a real socket', () => {
  it('creates a project with POST /api/v1/projects (201)', async ({ auth }) => {
    const response = await fetch(`${base}/api/v1/projects`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Wire', framework_version: '13' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe(JSON_UTF8);
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    expect(response.headers.get('retry-after')).toBeNull();
    const body = (await response.json()) as { project: { name: string; framework_version: string }; api_token: string };
    expect(body.project).toMatchObject({ name: 'Wire', framework_version: '13' });
    expect(body.api_token).toMatch(PROJECT_API_TOKEN);
  });

  it('lists projects with pagination links on the real host and port (D16)', async ({ auth }) => {
    const response = await fetch(`${base}/api/v1/projects`, { headers: auth() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(JSON_UTF8);
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const body = (await response.json()) as { data: { name: string }[]; links: Record<string, string | null> };
    expect(body.data.map((p) => p.name)).toEqual(['Wire']);
    expect(body.links).toEqual({
      first: `${base}/api/v1/projects?page=1`,
      last: `${base}/api/v1/projects?page=1`,
      prev: null,
      next: null,
    });
  });

  it('answers 401 in the envelope without a token, counted against the socket peer (D8)', async () => {
    const response = await fetch(`${base}/api/v1/tokens`);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe(JSON_UTF8);
    expect(response.headers.get('x-ratelimit-limit')).toBe('10');
    expect(await response.json()).toEqual(UNAUTHENTICATED);
  });
});
