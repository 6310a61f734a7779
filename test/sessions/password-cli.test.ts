/**
 * E7: the operator sets dashboard passwords with the CLI, from standard input (never a command-line
 * argument): `users:create --password-stdin` and `users:password --email E`. Checked against a real
 * `serve` over HTTP: the password signs in, a new one ends the user's sessions, none is ever printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, ok, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';

const PASSWORD = 'a long enough passphrase';

describe('dashboard passwords from the CLI', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  beforeAll(async () => {
    sandbox = await createSandbox({ migrated: true });
    server = await startServer(sandbox);
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  const signIn = (email: string, password: string) =>
    fetch(`${server.url}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;
  const sessionStatus = async (cookie: string) => (await fetch(`${server.url}/api/v1/session`, { headers: { cookie } })).status;

  it('users:create --password-stdin: a refused password creates no user; a good one signs in', async () => {
    // Twelve characters once trimmed: spaces around it do not count.
    const refused = await sandbox.cliWithInput('   too short   \n', 'users:create', '--email', 'short@example.com', '--password-stdin');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('scoreboard: The password must be at least 12 characters.\n');
    expect((await sandbox.cli('users:show', '--email', 'short@example.com')).code).toBe(1);

    const created = await sandbox.cliWithInput(`${PASSWORD}\n`, 'users:create', '--email', 'ada@example.com', '--password-stdin');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout + created.stderr).not.toContain(PASSWORD);
    // It says where to sign in (the sandbox sets neither PUBLIC_URL nor PORT: serve's default).
    expect(created.stdout).toMatch(
      /^User ada@example\.com created \(id \d+\)\. Token: \w+\nSign in at http:\/\/127\.0\.0\.1:3000\/ with ada@example\.com and that password\.\n$/,
    );
    // Trimmed like every string the API reads (D12): the newline that ends the line is not part of it.
    expect((await signIn('ada@example.com', PASSWORD)).status).toBe(201);
    expect((await signIn('ada@example.com', `${PASSWORD.slice(0, -1)}`)).status).toBe(401);
  });

  it('users:password: sets a new password and signs the user out everywhere at once', async () => {
    // Without a password, it says how to set one.
    expect(await ok(sandbox, 'users:create', '--email', 'grace@example.com')).toMatch(
      /\nNo dashboard password yet: set one with `scoreboard users:password --email grace@example\.com` to sign in\.\n$/,
    );
    // No password yet: no way in.
    expect((await signIn('grace@example.com', PASSWORD)).status).toBe(401);

    const first = await sandbox.cliWithInput(PASSWORD, 'users:password', '--email', 'Grace@Example.com');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(
      'Password set for grace@example.com; 0 session(s) signed out.\nSign in at http://127.0.0.1:3000/ with grace@example.com and that password.\n',
    );
    const cookie = cookieOf(await signIn('grace@example.com', PASSWORD));
    expect(await sessionStatus(cookie)).toBe(200);

    const second = await sandbox.cliWithInput('another passphrase!', 'users:password', '--email', 'grace@example.com', '--json');
    expect(JSON.parse(second.stdout)).toEqual({ id: expect.any(Number), email: 'grace@example.com', sessions_ended: 1 });
    expect(await sessionStatus(cookie)).toBe(401);
    expect((await signIn('grace@example.com', PASSWORD)).status).toBe(401);
    expect((await signIn('grace@example.com', 'another passphrase!')).status).toBe(201);

    const unknown = await sandbox.cliWithInput(PASSWORD, 'users:password', '--email', 'nobody@example.com');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'scoreboard: No user with email nobody@example.com: create one with `scoreboard users:create --email nobody@example.com --password-stdin`.\n',
    );
    // An unset $PASSWORD piped in: the input is empty, which is not a short password; the unknown
    // user is named first, whatever the input.
    const empty = await sandbox.cliWithInput('', 'users:password', '--email', 'grace@example.com');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(
      /^scoreboard: No password was read from standard input: pipe one in .*or run the command at a terminal to type it\.\n$/,
    );
    expect((await sandbox.cliWithInput('', 'users:password', '--email', 'nobody@example.com')).stderr).toContain(
      'No user with email nobody@example.com',
    );
    const emptyCreate = await sandbox.cliWithInput('\n', 'users:create', '--email', 'empty@example.com', '--password-stdin');
    expect(emptyCreate.stderr).toMatch(/^scoreboard: No password was read from standard input/);
    const short = await sandbox.cliWithInput('short', 'users:password', '--email', 'grace@example.com');
    expect(short.stderr).toBe('scoreboard: The password must be at least 12 characters.\n');

    expect(server.output()).not.toContain(PASSWORD);
    expect(server.output()).not.toContain('another passphrase!');
  });
});
