import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret, webhookSignature } from '../../src/webhooks/signature.js';

/**
 * E6: the README's PHP verification example, as written, served by PHP's built-in web server and
 * sent real requests signed by the service's code: what a PHP receiver copies is what is tested.
 * Needs `php` (`.ci/run` installs Debian's php-cli); skipped without it.
 */
const php = (() => {
  try {
    execFileSync('php', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The ```php block of the README's "## Webhooks" section. */
async function readmePhpExample(): Promise<string> {
  const text = await readFile(resolve(import.meta.dirname, '../../README.md'), 'utf8');
  const start = text.indexOf('\n## Webhooks\n');
  const end = text.indexOf('\n## ', start + 1);
  const match = /```php\n([\s\S]*?)```/.exec(text.slice(start, end === -1 ? undefined : end));
  if (start === -1 || !match) throw new Error('README.md has no ```php block in its "## Webhooks" section');
  return match[1]!;
}

const freePort = () =>
  new Promise<number>((resolvePort) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });

describe.skipIf(!php)("the README's PHP verification example", () => {
  const secret = generateWebhookSecret();
  let dir: string;
  let server: ChildProcess;
  let url: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scoreboard-readme-php-'));
    // The example reads its secret from the environment, and answers 401 itself when refusing.
    await writeFile(join(dir, 'index.php'), `<?php\n${await readmePhpExample()}\necho 'accepted ', $event['type'];\n`);
    const port = await freePort();
    url = `http://127.0.0.1:${port}/`;
    server = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', dir], {
      env: { ...process.env, SCOREBOARD_WEBHOOK_SECRET: secret },
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i++) {
      if (
        await fetch(url, { method: 'POST' }).then(
          () => true,
          () => false,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('php -S did not start');
  });
  afterAll(async () => {
    server?.kill();
    await rm(dir, { recursive: true, force: true });
  });

  const body = JSON.stringify({
    type: 'report.gate_failed',
    timestamp: new Date().toISOString(),
    data: { project: { id: 'p', name: 'Shöp ✓' } },
  });
  const id = '0199a1b2-0000-7000-8000-0000000000ff';
  const send = async (options: { secrets?: string[]; payload?: string; timestamp?: number } = {}) => {
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(options.secrets ?? [secret], id, timestamp, body),
      },
      body: options.payload ?? body,
    });
    return { status: response.status, text: await response.text() };
  };

  it('accepts a request signed with its secret, alone or beside another during a rotation', async () => {
    expect(await send()).toEqual({ status: 200, text: 'accepted report.gate_failed' });
    expect(await send({ secrets: [generateWebhookSecret(), secret] })).toEqual({ status: 200, text: 'accepted report.gate_failed' });
  });

  it('refuses an altered body, another secret, and a timestamp more than five minutes away', async () => {
    expect((await send({ payload: `${body} ` })).status).toBe(401);
    expect((await send({ secrets: [generateWebhookSecret()] })).status).toBe(401);
    expect((await send({ timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
  });
});
