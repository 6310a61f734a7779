import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { ROOT } from '../cli/cli-process.js';
import { createTestStore, type TestStore } from './test-backend.js';

/**
 * The release before `migration` was added, built from git (its src/ at the commit before the one
 * that added the file) into a folder with its own dist/, for upgrade tests that store data as that
 * release did. Built once per commit on a machine and kept under the system's temp folder: the
 * suite runs each upgrade test on both backends, often at the same moment, and a build is most of
 * such a test's time: the first process takes a lock (a folder made atomically) and builds, the
 * others wait for its build. A lock older than the longest build is a crashed builder's, and taken over.
 */
/** Longer than any build on a busy machine: a lock this old was left by a process that died. */
const STALE_LOCK_MS = 5 * 60_000;

export async function previousRelease(migration: string): Promise<string> {
  const added = execFileSync('git', ['log', '--diff-filter=A', '--format=%H', '--', migration], { cwd: ROOT, encoding: 'utf8' }).trim();
  if (!/^[0-9a-f]{40}$/.test(added)) throw new Error(`git does not know when ${migration} was added (got "${added}")`);
  const cache = join(tmpdir(), 'scoreboard-releases');
  // Per checkout too: the build uses (links) this checkout's node_modules.
  const checkout = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
  const release = join(cache, `before-${added}-${checkout}`);
  if (existsSync(join(release, 'dist', 'app.js'))) return release;

  mkdirSync(cache, { recursive: true });
  const lock = `${release}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (existsSync(join(release, 'dist', 'app.js'))) return release;
    const held = statSync(lock, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (existsSync(join(release, 'dist', 'app.js'))) {
    rmSync(lock, { recursive: true, force: true });
    return release;
  }
  const building = mkdtempSync(join(cache, 'building-'));
  try {
    const archive = execFileSync(
      'git',
      ['archive', '--format=tar', `${added}^`, 'src', 'resources', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
      { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 },
    );
    execFileSync('tar', ['-x', '-C', building], { input: archive });
    symlinkSync(join(ROOT, 'node_modules'), join(building, 'node_modules'));
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: building,
    });
    rmSync(release, { recursive: true, force: true });
    renameSync(building, release);
  } finally {
    rmSync(building, { recursive: true, force: true });
    rmSync(lock, { recursive: true, force: true });
  }
  return release;
}

/** A previous release's compiled modules, untyped: their types are the old release's, not ours. */
export type ReleaseModule = Record<string, any>;

/** What an upgrade test drives of the previous release: the modules it stores data through. */
export interface PreviousModules {
  app: ReleaseModule;
  config: ReleaseModule;
  migrate: ReleaseModule;
  database: ReleaseModule;
  operator: ReleaseModule;
}

/**
 * An upgrade test's setting, for use inside its `describe`: the release before `migration`, built
 * before the tests (beforeAll), its modules, and a store of its own for each attempt (a retry
 * starts again from an empty database), dropped with the temporary folder afterwards.
 */
export function upgradeFrom(migration: string, folderPrefix: string) {
  let dir = '';
  let release = '';
  let store: TestStore | null = null;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), folderPrefix));
    release = await previousRelease(migration);
  }, 240_000);
  afterAll(async () => {
    await store?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    async modules(): Promise<PreviousModules> {
      const load = (path: string): Promise<ReleaseModule> => import(pathToFileURL(join(release, 'dist', path)).href);
      const [app, config, migrate, database, operator] = await Promise.all(
        ['app.js', 'config.js', 'migrate.js', 'db/database.js', 'operator-features.js'].map(load),
      );
      return { app: app!, config: config!, migrate: migrate!, database: database!, operator: operator! };
    },
    async freshStore(): Promise<TestStore> {
      await store?.drop();
      store = await createTestStore(mkdtempSync(join(dir, 'store-')));
      return store;
    },
  };
}
