import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createSandbox, okJson, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { NOT_FOUND, UNAUTHENTICATED } from '../helpers/contract.js';
import { onPostgres } from '../helpers/test-backend.js';

/**
 * Issue 4: two real server processes on different ports, sharing one PostgreSQL schema and one
 * Redis prefix, behave as one service: rate budgets are shared (D8), and a revoked token, a
 * regenerated project token or a deleted project is refused at once on the other instance (D9, D10).
 * Only meaningful on the postgres backend (a SQLite file is one machine's database).
 */
describe.skipIf(!onPostgres)('two instances on one PostgreSQL and one Redis', () => {
  let sandbox: Sandbox;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    sandbox = await createSandbox();
    [a, b] = await Promise.all([startServer(sandbox), startServer(sandbox)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sandbox?.cleanup();
  });

  let sequence = 0;
  const newUser = async (plan = 'solo'): Promise<{ token: string }> => {
    sequence += 1;
    return okJson(sandbox, 'users:create', '--email', `two-${sequence}@example.com`, '--plan', plan);
  };

  it('run on different ports', () => {
    expect(new URL(a.url).port).not.toBe(new URL(b.url).port);
  });

  it("shares a user's rate budget: requests split across instances hit 429 at the same total (D8)", async () => {
    const { token } = await newUser();
    for (let i = 1; i <= 120; i++) {
      const server = i % 2 === 0 ? a : b;
      const response = await api(server, 'GET', '/api/v1/tokens', token);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(120 - i));
    }
    for (const server of [a, b]) {
      const over = await api(server, 'GET', '/api/v1/tokens', token);
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe(String(over.body.retry_after));
    }
  });

  it('refuses on B a personal access token revoked on A, at once (D9)', async () => {
    const { token } = await newUser();
    const created = await api(a, 'POST', '/api/v1/tokens', token, { name: 'leaked', abilities: ['read'] });
    expect(created.status).toBe(201);
    const leaked: string = created.body.plain_text_token;
    expect((await api(b, 'GET', '/api/v1/tokens', leaked)).status).toBe(200);

    expect((await api(a, 'DELETE', `/api/v1/tokens/${created.body.token.id}`, token)).status).toBe(200);
    const refused = await api(b, 'GET', '/api/v1/tokens', leaked);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(UNAUTHENTICATED);
  });

  it('refuses on B a project API token regenerated on A, at once, and accepts the new one (D10)', async () => {
    const { token } = await newUser();
    const project = await api(a, 'POST', '/api/v1/projects', token, { name: 'Shop', framework_version: '11' });
    expect(project.status).toBe(201);
    const oldToken: string = project.body.api_token;
    expect((await clientCall(b, oldToken)).status).toBe(200);

    const rotated = await api(a, 'POST', `/api/v1/projects/${project.body.project.id}/regenerate-token`, token);
    expect(rotated.status).toBe(200);
    const refused = await clientCall(b, oldToken);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ success: false, valid: false });
    expect((await clientCall(b, rotated.body.api_token)).status).toBe(200);
  });

  it('answers 404 on B for a project deleted on A, and refuses its API token', async () => {
    const { token } = await newUser();
    const project = await api(b, 'POST', '/api/v1/projects', token, { name: 'Doomed', framework_version: '12' });
    const id: string = project.body.project.id;
    expect((await api(b, 'GET', `/api/v1/projects/${id}`, token)).status).toBe(200);

    expect((await api(a, 'DELETE', `/api/v1/projects/${id}`, token)).status).toBe(200);
    const gone = await api(b, 'GET', `/api/v1/projects/${id}`, token);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(NOT_FOUND);
    expect((await clientCall(b, project.body.api_token)).status).toBe(401);
  });

  it('sees on each instance what the other wrote: an upload on A is the latest report on B', async () => {
    const { token } = await newUser();
    const project = await api(a, 'POST', '/api/v1/projects', token, { name: 'Shared', framework_version: '11' });
    const upload = await fetch(`${a.url}/api/reports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.body.api_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ results: [{ analyzer_id: 'sql-injection', status: 'passed', message: 'ok', issues: [] }] }),
    });
    expect(upload.status).toBe(201);
    const { report } = (await upload.json()) as { report: { uuid: string } };
    const read = await api(b, 'GET', `/api/v1/projects/${project.body.project.id}`, token);
    expect(read.body.data.latest_report).toMatchObject({ uuid: report.uuid, score: 100, total: 1 });
  });
});

/** `GET /api/token/verify` with a project API token, as the client package calls it. */
async function clientCall(server: RunningServer, apiToken: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/token/verify`, { headers: { authorization: `Bearer ${apiToken}` } });
  return { status: response.status, body: await response.json() };
}
