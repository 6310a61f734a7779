import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { fixtureText } from '../helpers/client-wire.js';
import { sha256 } from '../helpers/contract.js';

/**
 * Issue 7 / D9 / D10: plain-text tokens appear in no table of either database. Every kind of token
 * is handed out through every path that makes one and then used, so every write it causes (last
 * use, uploads, failure notices) has landed; then every row of every table of the store (found by
 * introspection, so a new table is searched too) — and on SQLite the raw bytes of the file and its
 * write-ahead log — is searched for each plain text and its parts.
 */
describe('plain-text tokens at rest, every table (D9, D10)', () => {
  it('stores only SHA-256 hashes of personal access tokens and project API tokens', async ({ ctx }) => {
    const user = await ctx.given.user(); // the CLI's code path
    const request = (method: 'GET' | 'POST', url: string, token: string, body?: unknown) => ctx.request({ method, url, token, body });

    const pat = (await request('POST', '/api/v1/tokens', user.token, { name: 'CI', abilities: ['read', 'write'] })).json()
      .plain_text_token as string;
    const created = (await request('POST', '/api/v1/projects', pat, { name: 'Shop', framework_version: '11' })).json();
    const projectId: string = created.project.id;
    const firstProjectToken: string = created.api_token;
    const { apiToken: factoryProjectToken } = await ctx.given.project(user, { name: 'Second' });
    const rotatedProjectToken: string = (await request('POST', `/api/v1/projects/${projectId}/regenerate-token`, pat)).json().api_token;

    // Use every live token, so last-use writes, uploads and failure notices are stored too.
    expect((await request('GET', '/api/v1/tokens', user.token)).statusCode).toBe(200);
    expect((await request('GET', '/api/v1/projects', pat)).statusCode).toBe(200);
    expect((await request('POST', '/api/reports', rotatedProjectToken, fixtureText('report-small', projectId))).statusCode).toBe(201);
    expect((await request('POST', '/api/reports/failure', rotatedProjectToken, fixtureText('failure', projectId))).statusCode).toBe(201);
    expect((await request('GET', '/api/token/verify', factoryProjectToken)).statusCode).toBe(200);
    // The token that was rotated away, presented again: refused, and not stored on the way.
    expect((await request('GET', '/api/project', firstProjectToken)).statusCode).toBe(401);

    const stored = await ctx.store.everythingStored();
    // The search really covers the token rows and the projects: their hashes are there.
    for (const token of [user.token, pat, factoryProjectToken, rotatedProjectToken]) expect(stored).toContain(sha256(token));
    expect(stored).toContain('reports: [{'); // and the upload's table, with a row
    expect(stored).toContain('audit_events: [{'); // and the audit log of those changes (E5)

    const plainTexts = {
      cli: user.token,
      http: pat,
      project: firstProjectToken,
      factoryProject: factoryProjectToken,
      rotated: rotatedProjectToken,
    };
    for (const [source, plain] of Object.entries(plainTexts)) {
      const body = plain.startsWith('service_') ? plain.slice(8, 48) : plain;
      expect(stored.includes(plain), `${source} token stored in plain text`).toBe(false);
      expect(stored.includes(body), `${source} token body stored`).toBe(false);
      expect(stored.includes(body.slice(0, 20)), `${source} token's first half stored`).toBe(false);
      expect(stored.includes(body.slice(20)), `${source} token's second half stored`).toBe(false);
    }
  });

  it('stores dashboard passwords as scrypt hashes and sessions as SHA-256 of their secret, never the plain text (E7)', async ({ ctx }) => {
    const user = await ctx.given.user();
    const password = 'a password kept nowhere';
    await ctx.given.password(user, password);
    const signIn = await ctx.request({ method: 'POST', url: '/api/v1/session', body: { email: user.email, password } });
    expect(signIn.statusCode).toBe(201);
    const secret = signIn.cookies[0]!.value;
    const csrf: string = signIn.json().data.csrf_token;
    const headers = { cookie: `scoreboard_session=${secret}`, 'x-csrf-token': csrf };
    const newPassword = 'another password kept nowhere';
    const change = { current_password: password, password: newPassword };
    expect((await ctx.request({ method: 'PUT', url: '/api/v1/user/password', headers, body: change })).statusCode).toBe(200);
    await ctx.request({ method: 'POST', url: '/api/v1/session', body: { email: user.email, password: 'a wrong one, counted' } });

    const stored = await ctx.store.everythingStored();
    expect(stored).toContain(sha256(secret)); // the search covers the sessions table
    expect(stored).toMatch(/scrypt\$15\$8\$1\$/); // and the users' password hashes
    for (const plain of [password, newPassword, secret, csrf, 'a wrong one, counted']) {
      expect(stored.includes(plain), `${plain} stored in plain text`).toBe(false);
    }
  });

  it("never puts a secret in an audit event's details (E5): tokens, project tokens, badge keys", async ({ ctx }) => {
    const user = await ctx.given.user({ plan: 'business' });
    const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
      ctx.request({ method, url, token: user.token, body });
    const secrets: string[] = [user.token];
    const pat = (await send('POST', '/api/v1/tokens', { name: 'CI', abilities: ['read'] })).json();
    secrets.push(pat.plain_text_token);
    expect((await send('DELETE', `/api/v1/tokens/${pat.token.id}`)).statusCode).toBe(200);
    const created = (await send('POST', '/api/v1/projects', { name: 'Shop', framework_version: '11' })).json();
    secrets.push(created.api_token);
    secrets.push((await send('POST', `/api/v1/projects/${created.project.id}/regenerate-token`)).json().api_token);
    const badgeKeyOf = (url: string) => /\/badges\/([^/]+)\//.exec(url)![1]!;
    secrets.push(badgeKeyOf((await send('GET', `/api/v1/projects/${created.project.id}/badges`)).json().data.score_svg));
    secrets.push(badgeKeyOf((await send('POST', `/api/v1/projects/${created.project.id}/badges/regenerate`)).json().data.score_svg));
    const team = (await send('POST', '/api/v1/teams', { name: 'Acme' })).json().team;
    expect((await send('POST', `/api/v1/teams/${team.id}/invitations`, { email: 'new@example.com', role: 'member' })).statusCode).toBe(201);

    const events = JSON.stringify(await ctx.db.selectFrom('audit_events').selectAll().execute());
    expect(events).toContain('project.badge_regenerated'); // the search covers the events of every change above
    for (const secret of secrets) {
      const body = secret.startsWith('service_') ? secret.slice(8, 48) : secret;
      expect(events.includes(body), `a secret (${secret.slice(0, 12)}…) in audit_events`).toBe(false);
      expect(events.includes(sha256(secret)), 'a token hash in audit_events').toBe(false);
    }
  });
});
