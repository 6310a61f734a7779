import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { sha256 } from '../helpers/contract.js';

const it = appTest
  /** Every row of every table, and on SQLite every byte of the file and its write-ahead log. */
  .extend(
    'storedBytes',
    ({ ctx }) =>
      (): Promise<string> =>
        ctx.store.everythingStored(),
  );

// D9: only the SHA-256 of the whole plain text is stored; the plain text is never stored.
describe('personal access tokens at rest (D9)', () => {
  it('stores neither the plain text nor its 40-character body, only the SHA-256 hex', async ({ ctx, storedBytes }) => {
    const user = await ctx.given.user(); // CLI path
    const viaFactory = await ctx.given.token(user, { name: 'factory', abilities: ['read'] });
    const created = await ctx.request({
      method: 'POST',
      url: '/api/v1/tokens',
      token: user.token,
      body: { name: 'http', abilities: ['read', 'write'], expires_at: '2027-06-01' },
    });
    expect(created.statusCode).toBe(201);
    const viaHttp: string = created.json().plain_text_token;
    // Use them, so last_used_at writes also land in the files.
    for (const token of [user.token, viaFactory, viaHttp]) {
      expect((await ctx.request({ method: 'GET', url: '/api/v1/tokens', token })).statusCode).toBe(200);
    }

    const bytes = await storedBytes();
    // The files really hold the token rows: each hash is there (so a plain text would be too).
    for (const plain of [user.token, viaFactory, viaHttp]) expect(bytes.includes(sha256(plain))).toBe(true);
    const plainTexts = { cli: user.token, factory: viaFactory, http: viaHttp };
    for (const [source, plain] of Object.entries(plainTexts)) {
      expect(bytes.includes(plain), `${source} plain text in the database files`).toBe(false);
      expect(bytes.includes(plain.slice(8, 48)), `${source} token body in the database files`).toBe(false);
      expect(bytes.includes(plain.slice(8)), `${source} token without prefix in the database files`).toBe(false);
    }
    expect(bytes.includes('service_')).toBe(false);

    const rows = await ctx.db
      .selectFrom('personal_access_tokens')
      .select(['name', 'token_hash'])
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { name: 'CLI token', token_hash: sha256(user.token) },
      { name: 'factory', token_hash: sha256(viaFactory) },
      { name: 'http', token_hash: sha256(viaHttp) },
    ]);
    for (const row of rows) expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps no plain-text column anywhere in the token table', async ({ ctx }) => {
    const user = await ctx.given.user();
    const row = await ctx.db.selectFrom('personal_access_tokens').selectAll().where('user_id', '=', user.id).executeTakeFirstOrThrow();
    for (const value of Object.values(row)) {
      if (typeof value === 'string') {
        expect(value).not.toContain(user.token.slice(8, 48));
      }
    }
  });
});

// E9.2: E6's signing secrets are stored sealed (AES-256-GCM under SECRET_KEY, or secret.key beside
// a SQLite file); neither they nor the key are anywhere in the database.
describe('webhook secrets at rest (E9.2)', () => {
  it('stores a webhook secret and the one a rotation keeps only sealed, and never the key', async ({ ctx, storedBytes }) => {
    const user = await ctx.given.user();
    const { project } = await ctx.given.project(user);
    const hooks = `/api/v1/projects/${project.id}/webhooks`;
    const created = await ctx.request({
      method: 'POST',
      url: hooks,
      token: user.token,
      body: { url: 'https://hooks.example.com/scoreboard', events: ['ping'] },
    });
    expect(created.statusCode).toBe(201);
    const { webhook, secret: first } = created.json() as { webhook: { id: string }; secret: string };
    const rotated = await ctx.request({ method: 'POST', url: `${hooks}/${webhook.id}/rotate-secret`, token: user.token });
    expect(rotated.statusCode).toBe(200);
    const second: string = rotated.json().secret;
    const ping = await ctx.request({ method: 'POST', url: `${hooks}/${webhook.id}/ping`, token: user.token });
    expect(ping.statusCode).toBe(202);

    const bytes = await storedBytes();
    const row = await ctx.db.selectFrom('webhooks').select(['secret', 'previous_secret']).executeTakeFirstOrThrow();
    // The search covers the webhook row: its sealed values are there.
    expect(bytes.includes(row.secret) && bytes.includes(row.previous_secret!)).toBe(true);
    expect(ctx.secrets.isSealed(row.secret) && ctx.secrets.isSealed(row.previous_secret!)).toBe(true);
    for (const secret of [first, second]) {
      const body = secret.slice('whsec_'.length);
      for (const fragment of [secret, body, body.slice(0, 20), body.slice(20)])
        expect(bytes.includes(fragment), `${fragment} in the database files`).toBe(false);
      // Nor its bytes in another encoding.
      expect(bytes.includes(Buffer.from(body, 'base64').toString('hex'))).toBe(false);
      expect(bytes.includes(Buffer.from(body, 'base64').toString('base64url'))).toBe(false);
    }
    if (ctx.config.secretKey) expect(bytes.includes(ctx.config.secretKey)).toBe(false);
  });
});

// E9.1 / E9.2: a connection's credentials are stored sealed; neither they nor the auth header made
// of them are anywhere in the tables or (SQLite) the files.
describe('connection credentials at rest (E9.1)', () => {
  it('stores no credential in plain text, in any table or file', async ({ ctx, storedBytes }) => {
    const owner = await ctx.given.user({ plan: 'business' });
    const secrets = {
      github: 'ghp_atRestGitHubToken77777',
      jira: 'ATATTatRestJiraApiToken888',
      linear: 'lin_api_atRestLinearKey999',
      replaced: 'glpat-atRestReplacedToken1',
    };
    const url = `/api/v1/teams/${owner.teamId}/connections`;
    const bodies = [
      { provider: 'github', name: 'G', credentials: { token: secrets.github } },
      {
        provider: 'jira',
        name: 'J',
        base_url: 'https://shop.atlassian.net',
        credentials: { email: 'ada@example.com', api_token: secrets.jira },
      },
      { provider: 'linear', name: 'L', credentials: { api_key: secrets.linear } },
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const created = await ctx.request({ method: 'POST', url, token: owner.token, body });
      expect(created.statusCode, created.body).toBe(201);
      ids.push(created.json().data.id);
    }
    const gitlab = await ctx.request({
      method: 'POST',
      url,
      token: owner.token,
      body: { provider: 'gitlab', name: 'GL', credentials: { token: 'glpat-first0000' } },
    });
    const changed = await ctx.request({
      method: 'PUT',
      url: `${url}/${gitlab.json().data.id}`,
      token: owner.token,
      body: { credentials: { token: secrets.replaced } },
    });
    expect(changed.statusCode, changed.body).toBe(200);

    const rows = await ctx.db.selectFrom('connections').selectAll().execute();
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.credentials).toMatch(/^[a-z0-9]+:/); // sealed: a prefix, then the key id and parts
    const bytes = await storedBytes();
    expect(bytes.includes('shop.atlassian.net')).toBe(true); // the scan sees the connection rows
    const basic = Buffer.from(`ada@example.com:${secrets.jira}`).toString('base64');
    for (const [name, secret] of Object.entries({ ...secrets, basic })) {
      expect(bytes.includes(secret), `${name} in the stored bytes`).toBe(false);
      expect(bytes.includes(secret.slice(0, -4)), `${name} without its hint in the stored bytes`).toBe(false);
    }
  });
});
