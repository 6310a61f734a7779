import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SERVICE_NODE_FLAGS } from './cli-process.js';

/**
 * D28's memory bound depends on V8 flags the service is started with (README, "Large reports"):
 * every way it is started passes the same ones, which the tests' and the benchmark's servers use.
 */
describe('the Node flags the service runs with', () => {
  const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
  const flags = SERVICE_NODE_FLAGS.join(' ');

  it('are the same in the command’s shebang, npm start, the container and the benchmark', () => {
    expect(read('bin/scoreboard.js').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    // `exec`: the server replaces npm's shell, so the signal a service manager sends npm reaches it (npm-start.test.ts).
    expect(start).toBe(`exec node ${flags} bin/scoreboard.js serve`);
    expect(read('Dockerfile')).toContain(
      `ENTRYPOINT ["node", ${SERVICE_NODE_FLAGS.map((flag) => `"${flag}"`).join(', ')}, "bin/scoreboard.js"]`,
    );
    expect(read('bench/processes.ts')).toContain(`SERVICE_NODE_FLAGS = [${SERVICE_NODE_FLAGS.map((flag) => `'${flag}'`).join(', ')}]`);
    expect(read('README.md')).toContain(`node ${flags}`);
  });
});
