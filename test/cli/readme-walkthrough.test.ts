/**
 * The README's five-minute walkthrough, run as written (issue 16, item 7): its shell block, taken
 * from README.md itself, runs in bash against a real `scoreboard serve` process. Only the address
 * (a free port instead of 3000) and `npx scoreboard` (this checkout's bin, since the sandbox folder
 * is not the repository) are replaced.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, createSandbox, startServer, type RunningServer, type Sandbox } from './cli-process.js';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** The first ```sh block after the walkthrough's heading. */
function walkthroughScript(): string {
  const section = README.slice(README.indexOf('## Five-minute walkthrough'));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README.md has no walkthrough block');
  return match[1]!;
}

/** The JSON documents curl printed one after another (its output ends with no newline), and the rest. */
function splitJson(text: string): { documents: Record<string, any>[]; rest: string } {
  const documents: Record<string, any>[] = [];
  // Step 1's prompt ends its line with a newline of its own.
  let start = text.startsWith('\n') ? 1 : 0;
  while (text[start] === '{') {
    let depth = 0;
    let inString = false;
    let end = start;
    for (; end < text.length; end += 1) {
      const char = text[end];
      if (inString) {
        if (char === '\\') end += 1;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === '{') depth += 1;
      else if (char === '}' && --depth === 0) break;
    }
    documents.push(JSON.parse(text.slice(start, end + 1)) as Record<string, any>);
    start = end + 1;
    while (text[start] === '\n') start += 1;
  }
  return { documents, rest: text.slice(start) };
}

function bash(
  script: string,
  options: { cwd: string; env: Record<string, string>; input: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    // From a file, not a pipe: Node's pipes are sockets, and bash reading a socket thinks rshd
    // started it and sources ~/.bashrc.
    const inputFile = join(options.cwd, 'walkthrough-input');
    writeFileSync(inputFile, options.input);
    const stdin = openSync(inputFile, 'r');
    const child = spawn('bash', ['-c', script], { cwd: options.cwd, env: options.env, stdio: [stdin, 'pipe', 'pipe'] });
    closeSync(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

const PASSWORD = 'correct horse battery staple';

describe('the README walkthrough, run as written', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  beforeAll(async () => {
    sandbox = await createSandbox();
    server = await startServer(sandbox);
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it('creates a user and a project, uploads, lists, reads, and the revoked CI token gets 401', async () => {
    const script = walkthroughScript()
      .replaceAll('http://127.0.0.1:3000', server.url)
      .replaceAll('npx scoreboard', `node ${JSON.stringify(BIN)}`);
    // Step 1's prompt reads the password from the terminal; here, from standard input.
    const result = await bash(`set -euo pipefail\n${script}`, { cwd: sandbox.dir, env: sandbox.env, input: `${PASSWORD}\n` });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Step 1 leaves the person able to sign in to the dashboard at the first try.
    const signIn = await fetch(`${server.url}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'you@example.com', password: PASSWORD }),
    });
    expect(signIn.status).toBe(201);

    const { documents, rest } = splitJson(result.stdout);
    const [project, upload, list, report, ciList, revoked, refused] = documents;
    expect(project).toMatchObject({ project: { name: 'Shop' }, api_token: expect.stringMatching(/^[A-Za-z0-9]{40}$/) });
    expect(upload).toMatchObject({ success: true });
    expect(list).toMatchObject({ data: [{ id: project!.project.id }] });
    expect(report).toMatchObject({ data: { score: expect.any(Number), results: [expect.anything(), expect.anything()] } });
    expect(ciList).toEqual(list); // the CI token reads what its owner reads
    expect(revoked).toMatchObject({ message: expect.any(String) });
    // Step 7's last command: the revoked token, refused.
    expect(refused).toEqual({ error: 'Unauthenticated', message: 'Authentication required.' });
    expect(rest).toBe(' 401\n');
    expect(documents).toHaveLength(7);
  });
});
