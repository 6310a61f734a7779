import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from './cli-process.js';

/**
 * `prepare` (run by `npm ci`) in a production install, where TypeScript is not installed: a checkout
 * built before keeps its build; a fresh clone, with nothing to serve, must fail and say what to run
 * instead of ending "successfully" with a `scoreboard` that cannot start. Run from a copy of the
 * script in a folder with no node_modules above it, as `npm ci --omit=dev` leaves a fresh clone.
 */
describe('prepare without TypeScript (npm ci --omit=dev)', () => {
  let checkout: string;
  beforeEach(() => {
    checkout = mkdtempSync(join(tmpdir(), 'scoreboard-prepare-'));
    mkdirSync(join(checkout, 'scripts'));
    copyFileSync(join(ROOT, 'scripts/prepare.mjs'), join(checkout, 'scripts/prepare.mjs'));
  });
  afterEach(() => rmSync(checkout, { recursive: true, force: true }));

  const prepare = () => spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: checkout, encoding: 'utf8' });

  it('fails on a fresh clone, naming the commands that make a production install', () => {
    const result = prepare();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('there is no build in dist/');
    expect(result.stderr).toContain('`npm ci`');
    expect(result.stderr).toContain('`npm prune --omit=dev`');
  });

  it('keeps the build of a checkout built before', () => {
    mkdirSync(join(checkout, 'dist/cli'), { recursive: true });
    writeFileSync(join(checkout, 'dist/cli/main.js'), '');
    const result = prepare();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('serving the build in dist/');
  });
});
