import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createSandbox, ok, okJson, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { SUBSCRIPTION_REQUIRED, UNAUTHENTICATED } from '../helpers/contract.js';
import { onPostgres } from '../helpers/test-backend.js';

/**
 * Issue 15: on SQLite each instance caches token lookups (src/auth/token-cache.ts); on PostgreSQL
 * every lookup reads the database. Two real `serve` processes on one database (a PostgreSQL schema,
 * or one SQLite file): whatever instance A or the operator CLI changes is refused by instance B on
 * its very next request (D9), though B had just answered with the token. `X-SQL-Statements` shows
 * what B's answer before the change cost: on SQLite it came from B's cache.
 */
describe('the token cache across two instances on one database', () => {
  let sandbox: Sandbox;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    sandbox = await createSandbox();
    [a, b] = await Promise.all([
      startServer(sandbox, { SQL_STATEMENT_HEADER: 'true' }),
      startServer(sandbox, { SQL_STATEMENT_HEADER: 'true' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sandbox?.cleanup();
  });

  let sequence = 0;
  const newUser = async (plan = 'solo'): Promise<{ email: string; token: string }> => {
    sequence += 1;
    const email = `cache-${sequence}@example.com`;
    const { token } = await okJson<{ token: string }>(sandbox, 'users:create', '--email', email, '--plan', plan);
    return { email, token };
  };
  // The statements of GET /api/v1/tokens once B has answered the token (D9's last_used_at written):
  // on PostgreSQL nothing is cached, the token is looked up again; on SQLite the cache's generation
  // row is read and the lookup served from the cache.
  const KNOWN_TOKENS_LIST = onPostgres ? ['the token lookup', 'the list'] : ['the generation row', 'the list'];

  /** B answers `token` twice, the second time (on SQLite) from its cache. */
  const knownToB = async (token: string) => {
    expect((await api(b, 'GET', '/api/v1/tokens', token)).status).toBe(200);
    const known = await api(b, 'GET', '/api/v1/tokens', token);
    expect(known.status).toBe(200);
    expect(known.headers.get('x-sql-statements'), KNOWN_TOKENS_LIST.join(', ')).toBe(String(KNOWN_TOKENS_LIST.length));
  };
  const expectRefusedOnB = async (token: string) => {
    const refused = await api(b, 'GET', '/api/v1/tokens', token);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: UNAUTHENTICATED });
  };

  it('refuses on B a personal access token revoked on A, on its next request (D9)', async () => {
    const { token } = await newUser();
    const created = await api(a, 'POST', '/api/v1/tokens', token, { name: 'leaked', abilities: ['read'] });
    expect(created.status).toBe(201);
    const leaked: string = created.body.plain_text_token;
    await knownToB(leaked);

    expect((await api(a, 'DELETE', `/api/v1/tokens/${created.body.token.id}`, token)).status).toBe(200);
    await expectRefusedOnB(leaked);
    // The owner's other token still works on B.
    expect((await api(b, 'GET', '/api/v1/tokens', token)).status).toBe(200);
  });

  it('refuses on A itself a token it revoked, on the next request', async () => {
    const { token } = await newUser();
    const created = await api(a, 'POST', '/api/v1/tokens', token, { name: 'self', abilities: ['read'] });
    const plain: string = created.body.plain_text_token;
    expect((await api(a, 'GET', '/api/v1/tokens', plain)).status).toBe(200);
    expect((await api(a, 'DELETE', `/api/v1/tokens/${created.body.token.id}`, token)).status).toBe(200);
    expect((await api(a, 'GET', '/api/v1/tokens', plain)).status).toBe(401);
  });

  it('refuses on B the tokens of a user deleted with the CLI (users:delete)', async () => {
    const { email, token } = await newUser();
    await knownToB(token);
    await ok(sandbox, 'users:delete', '--email', email, '--yes');
    await expectRefusedOnB(token);
  });

  it('answers on B by the plan the CLI set (users:plan), not the cached one (D7)', async () => {
    const { email, token } = await newUser();
    expect((await api(b, 'GET', '/api/v1/projects', token)).status).toBe(200);
    expect((await api(b, 'GET', '/api/v1/projects', token)).status).toBe(200);
    await ok(sandbox, 'users:plan', '--email', email, '--plan', 'none');
    const refused = await api(b, 'GET', '/api/v1/projects', token);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: SUBSCRIPTION_REQUIRED });
    await ok(sandbox, 'users:plan', '--email', email, '--plan', 'business');
    expect((await api(b, 'GET', '/api/v1/projects', token)).status).toBe(200);
  });

  it("refuses on B's /api/reports a project API token regenerated on A (D10)", async () => {
    const { token } = await newUser();
    const project = await api(a, 'POST', '/api/v1/projects', token, { name: 'Shop', framework_version: '11' });
    expect(project.status).toBe(201);
    const oldToken: string = project.body.api_token;
    expect((await upload(b, oldToken)).status).toBe(201);

    const rotated = await api(a, 'POST', `/api/v1/projects/${project.body.project.id}/regenerate-token`, token);
    expect(rotated.status).toBe(200);
    const refused = await upload(b, oldToken);
    expect(refused.status).toBe(401);
    expect((await upload(b, rotated.body.api_token)).status).toBe(201);
  });
});

/** `POST /api/reports` with a project API token, as the client package sends it. */
async function upload(server: RunningServer, apiToken: string): Promise<{ status: number }> {
  const response = await fetch(`${server.url}/api/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ results: [{ analyzer_id: 'sql-injection', status: 'passed', message: 'ok', issues: [] }] }),
  });
  await response.arrayBuffer();
  return { status: response.status };
}
