import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createSandbox, okJson, type RunningServer, type Sandbox, startServer } from '../cli/cli-process.js';
import { eventually } from '../helpers/eventually.js';
import { type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { onPostgres } from '../helpers/test-backend.js';
import { body, MAIN, SQL, XSS } from '../issues/issues-world.js';

/**
 * E11.4: two real `scoreboard serve` processes on one PostgreSQL schema, both sending email to one
 * SMTP server in this process, their outbox workers running on their own clocks: each email of a
 * report arrives once, whichever instance took the upload and whichever made the attempts.
 */
describe.skipIf(!onPostgres)('emails with two instances on one PostgreSQL', () => {
  let sandbox: Sandbox;
  let smtp: SmtpCatcher;
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    sandbox = await createSandbox();
    const env = { SMTP_URL: smtp.url, MAIL_FROM: 'Scoreboard <scoreboard@example.com>', PUBLIC_URL: 'https://scoreboard.example.com' };
    [a, b] = await Promise.all([startServer(sandbox, env), startServer(sandbox, env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sandbox?.cleanup();
    await smtp?.close();
  });

  it("sends each of a report's emails once", async () => {
    const { token } = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'ada@example.com', '--plan', 'business');
    const created = await api(a, 'POST', '/api/v1/projects', token, { name: 'Shop', framework_version: '11' });
    expect(created.status).toBe(201);
    const { project, api_token: apiToken } = created.body;
    const gate = await api(b, 'PUT', `/api/v1/projects/${project.id}`, token, {
      name: 'Shop',
      framework_version: '11',
      settings: { fail_on: 'critical' },
    });
    expect(gate.status).toBe(200);
    const upload = async (server: RunningServer, spots: (typeof XSS)[], analyzedAt: string) => {
      const response = await fetch(`${server.url}/api/reports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body(spots, MAIN, analyzedAt)),
      });
      expect(response.status).toBe(201);
    };
    const now = Date.now();
    // A passing first report, then a failing one with a new critical issue: a gate email and a new-issues email.
    await upload(a, [XSS], new Date(now - 120_000).toISOString());
    await upload(b, [XSS, SQL], new Date(now - 60_000).toISOString());

    // Every message of the outbox done, both instances' workers having run: nothing more can arrive.
    await eventually(
      async () => {
        const open = await sandbox.withDb((db) => db.selectFrom('outbox').select('id').where('status', '=', 'pending').execute());
        const emails = await sandbox.withDb((db) => db.selectFrom('outbox').select('id').where('kind', '=', 'email').execute());
        return open.length === 0 && emails.length === 2;
      },
      { what: 'the emails sent' },
    );
    expect(smtp.received.map((email) => email.mail.subject).sort()).toEqual([
      '[Scoreboard] Shop: 1 new critical issue on main',
      '[Scoreboard] Shop: gate failed on main',
    ]);
    expect(smtp.received.every((email) => email.to[0] === 'ada@example.com')).toBe(true);
  });
});
