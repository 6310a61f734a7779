/**
 * Issue 16, item 3: one log line per answered request, carrying its method, route, status, duration
 * and whom it was for (user, project, team), never a token; readable lines when LOG_FORMAT=pretty or
 * stdout is a terminal outside production; JSON otherwise.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logFormatFor, loadConfig } from '../../src/config.js';
import { prettyLogStream } from '../../src/http/logging.js';
import { api, createSandbox, okJson, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { fixtureText } from '../helpers/client-wire.js';
import { LogCapture } from '../helpers/log-capture.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

interface Line {
  msg: string;
  level: number;
  method?: string;
  route?: string | null;
  url?: string;
  status?: number;
  duration_ms?: number;
  user_id?: number;
  project_id?: string;
  team_id?: number;
}

function requestLines(text: string): Line[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.msg === 'request completed');
}

describe('the request log line (JSON)', () => {
  let ctx: TestContext;
  let log: LogCapture;
  beforeAll(async () => {
    log = new LogCapture();
    ctx = await buildTestApp({ env: { LOG_LEVEL: 'info' }, deps: { logStream: log } });
  });
  afterAll(async () => ctx.close());

  async function linesOf(send: () => Promise<unknown>): Promise<Line[]> {
    const before = log.text.length;
    await send();
    return requestLines(log.text.slice(before));
  }

  it('names the method, the route pattern, the URL, the status, the duration and the user', async () => {
    const user = await ctx.given.user();
    const [line, ...rest] = await linesOf(() => ctx.request({ method: 'GET', url: '/api/v1/projects?page=1', token: user.token }));
    expect(rest).toEqual([]); // one line per request, not Fastify's two
    expect(line).toMatchObject({
      level: 30,
      method: 'GET',
      route: '/api/v1/projects',
      url: '/api/v1/projects?page=1',
      status: 200,
      user_id: user.id,
    });
    expect(line?.duration_ms).toEqual(expect.any(Number));
    expect(line?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('names the project of a path, and the route as a pattern', async () => {
    const user = await ctx.given.user();
    const { project } = await ctx.given.project(user);
    const [line] = await linesOf(() => ctx.request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: user.token }));
    expect(line).toMatchObject({ route: '/api/v1/projects/:project', status: 200, user_id: user.id, project_id: project.id });
  });

  it("names the project of a project token on the client package's endpoints, and no user", async () => {
    const user = await ctx.given.user();
    const { project, apiToken } = await ctx.given.project(user);
    const [line] = await linesOf(() =>
      ctx.request({ method: 'POST', url: '/api/reports', token: apiToken, body: fixtureText('report-small', project.id) }),
    );
    expect(line).toMatchObject({ method: 'POST', route: '/api/reports', status: 201, project_id: project.id });
    expect(line).not.toHaveProperty('user_id');
    expect(JSON.stringify(line)).not.toContain(apiToken);
  });

  it('names the team of a path', async () => {
    const user = await ctx.given.user();
    const teamId = await ctx.given.team(user, 'Platform');
    const [line] = await linesOf(() => ctx.request({ method: 'GET', url: `/api/v1/teams/${teamId}`, token: user.token }));
    expect(line).toMatchObject({ route: '/api/v1/teams/:team', status: 200, user_id: user.id, team_id: teamId });
  });

  it('logs refused and unknown requests too: no user for a bad token, a null route for an unknown path', async () => {
    const refused = await linesOf(() => ctx.request({ method: 'GET', url: '/api/v1/projects', token: 'service_nope' }));
    expect(refused).toEqual([expect.objectContaining({ route: '/api/v1/projects', status: 401 })]);
    expect(refused[0]).not.toHaveProperty('user_id');
    const unknown = await linesOf(() => ctx.request({ method: 'GET', url: '/nowhere' }));
    expect(unknown).toEqual([expect.objectContaining({ method: 'GET', route: null, url: '/nowhere', status: 404 })]);
  });
});

describe('the pretty format', () => {
  function pretty(lines: object[]): Promise<string> {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk) => (text += String(chunk)));
    const stream = prettyLogStream({ colorize: false, destination: out });
    for (const line of lines)
      stream.write(`${JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 25, 12, 0, 1, 234), pid: 1, hostname: 'h', ...line })}\n`);
    return new Promise((resolve) => setImmediate(() => resolve(text)));
  }

  it('reads a request as one line: method, URL, status, duration and whom it was for', async () => {
    const text = await pretty([
      {
        reqId: 'req-1',
        method: 'GET',
        route: '/api/v1/projects/:project',
        url: '/api/v1/projects/p1',
        status: 200,
        duration_ms: 3.1,
        user_id: 7,
        project_id: 'p1',
        msg: 'request completed',
      },
    ]);
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v1\/projects\/p1 200 3\.1 ms user 7 project p1\n$/);
  });

  it('keeps the message of any other line, with its fields below it', async () => {
    const text = await pretty([{ signal: 'SIGTERM', msg: 'shutting down: finishing in-flight requests' }]);
    expect(text).toContain('INFO: shutting down: finishing in-flight requests');
    expect(text).toContain('signal: "SIGTERM"');
  });
});

describe('LOG_FORMAT and NODE_ENV choose the format', () => {
  it.each([
    [{}, true, 'pretty'],
    [{}, false, 'json'],
    [{ NODE_ENV: 'production' }, true, 'json'],
    [{ LOG_FORMAT: 'pretty' }, false, 'pretty'],
    [{ LOG_FORMAT: 'pretty', NODE_ENV: 'production' }, false, 'pretty'],
    [{ LOG_FORMAT: 'json' }, true, 'json'],
  ] as const)('%o with a terminal: %s -> %s', (env, terminal, format) => {
    expect(logFormatFor(loadConfig(env), terminal)).toBe(format);
  });

  it('refuses another LOG_FORMAT, naming the allowed values', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow('env/LOG_FORMAT must be one of json, pretty');
  });
});

describe('scoreboard serve with LOG_FORMAT=pretty (stdout of the real process)', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  beforeAll(async () => {
    sandbox = await createSandbox();
    server = await startServer(sandbox, { LOG_FORMAT: 'pretty' });
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it('prints readable lines, the request with its user, and no token', async () => {
    const { token, user } = await okJson<{ token: string; user: { id: number } }>(sandbox, 'users:create', '--email', 'pretty@example.com');
    expect((await api(server, 'GET', '/api/v1/projects', token)).status).toBe(200);
    await expect.poll(() => server.output()).toMatch(new RegExp(`INFO: GET /api/v1/projects 200 [0-9.]+ ms user ${user.id}\\n`));
    expect(server.output()).not.toMatch(/^\{/m);
    expect(server.output()).not.toContain(token.slice(8, 48));
  });
});
