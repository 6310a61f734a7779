/**
 * E9.2's keys (src/secrets/secret-keys.ts): SECRET_KEY when set; else, for SQLite, `secret.key`
 * beside the database file, generated at the first start with mode 0600 and read at every later
 * one, the same for processes starting at once; a malformed key is refused naming the variable or
 * the file, never the value.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { generateSecretKey } from '../../src/secrets/secret-box.js';
import { loadSecretKeys, SecretKeyError } from '../../src/secrets/secret-keys.js';
import { BIN, ROOT, runNode } from '../cli/cli-process.js';
import { onPostgres } from '../helpers/test-backend.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scoreboard-keys-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sqliteIn = (dir: string) => ({
  databaseUrl: `sqlite:${join(dir, 'scoreboard.db')}`,
  secretKey: undefined,
  secretKeyPrevious: undefined,
});

describe.skipIf(onPostgres)('secret.key beside a SQLite database', () => {
  it('is generated at the first start with mode 0600, and the same key is read at every later one', () => {
    const dir = tempDir();
    const first = loadSecretKeys(sqliteIn(dir));
    const file = join(dir, 'secret.key');
    expect(first).toMatchObject({ source: 'generated secret.key', file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const sealed = first.box.seal('whsec_abc', 'webhook:1');

    const again = loadSecretKeys(sqliteIn(dir));
    expect(again).toMatchObject({ source: 'secret.key', file });
    expect(again.current!.id).toBe(first.current!.id);
    expect(again.box.open(sealed, 'webhook:1')).toBe('whsec_abc');
    // Nothing else is left beside it (the file each process writes before linking it in place).
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('is one key for processes starting at once on one database', async () => {
    const module = pathToFileURL(join(ROOT, 'dist/secrets/secret-keys.js')).href;
    for (let round = 0; round < 3; round++) {
      const dir = tempDir();
      const script = `import(${JSON.stringify(module)}).then((m) => { const k = m.loadSecretKeys(${JSON.stringify(sqliteIn(dir))}); console.log(k.current.id + ' ' + k.source); })`;
      const results = await Promise.all(
        Array.from({ length: 6 }, () => runNode(['-e', script], { cwd: dir, env: { PATH: process.env.PATH ?? '' } })),
      );
      for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      const lines = results.map((result) => result.stdout.trim().split(' '));
      expect(new Set(lines.map(([id]) => id)).size).toBe(1);
      expect(lines.filter(([, source]) => source === 'generated').length).toBe(1);
      expect(loadSecretKeys(sqliteIn(dir)).current!.id).toBe(lines[0]![0]);
    }
  });

  it('refuses a malformed key file, naming the file and not its content; the service does not start', async () => {
    const dir = tempDir();
    const file = join(dir, 'secret.key');
    writeFileSync(file, 'c2hvcnQta2V5LXZhbHVl\n', { mode: 0o600 });
    expect(() => loadSecretKeys(sqliteIn(dir))).toThrow(SecretKeyError);
    expect(() => loadSecretKeys(sqliteIn(dir))).toThrow(
      `${file} must be 32 bytes in base64 (it is 15 bytes); generate one with: openssl rand -base64 32`,
    );

    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: sqliteIn(dir).databaseUrl };
    for (const command of ['migrate', 'serve']) {
      const result = await runNode([BIN, command], { cwd: dir, env: { ...env, PORT: '0', HOST: '127.0.0.1' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `scoreboard: ${file} must be 32 bytes in base64 (it is 15 bytes); generate one with: openssl rand -base64 32\n`,
      );
      expect(result.stdout + result.stderr).not.toContain('c2hvcnQta2V5LXZhbHVl');
    }
  });

  it('is not used when SECRET_KEY is set: no file is made', () => {
    const dir = tempDir();
    const keys = loadSecretKeys({ ...sqliteIn(dir), secretKey: generateSecretKey() });
    expect(keys).toMatchObject({ source: 'SECRET_KEY', file: null });
    expect(() => statSync(join(dir, 'secret.key'))).toThrow();
  });
});

describe('SECRET_KEY and SECRET_KEY_PREVIOUS', () => {
  it('refuses a malformed one, naming the variable and not the value', () => {
    for (const name of ['SECRET_KEY', 'SECRET_KEY_PREVIOUS']) {
      const load = () => loadConfig({ DATABASE_URL: 'sqlite::memory:', [name]: 'bm90LWEta2V5' });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(
        `Invalid configuration: env/${name} must be 32 bytes in base64 (it is 9 bytes); generate one with: openssl rand -base64 32`,
      );
      try {
        load();
      } catch (error) {
        expect((error as Error).message).not.toContain('bm90LWEta2V5');
      }
    }
  });

  it('takes an empty value as unset', () => {
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', SECRET_KEY: '', SECRET_KEY_PREVIOUS: '' });
    expect(config.secretKey).toBeUndefined();
    expect(config.secretKeyPrevious).toBeUndefined();
  });

  it('PostgreSQL without SECRET_KEY has no key: nothing can be sealed', () => {
    const keys = loadSecretKeys({ databaseUrl: 'postgres://db.example/scoreboard', secretKey: undefined, secretKeyPrevious: undefined });
    expect(keys).toMatchObject({ source: 'none', current: null, file: null });
    expect(keys.box.canSeal).toBe(false);
  });

  it('opens with SECRET_KEY_PREVIOUS what the previous key sealed, and seals only under SECRET_KEY', () => {
    const [oldKey, newKey] = [generateSecretKey(), generateSecretKey()];
    const before = loadSecretKeys({ databaseUrl: 'sqlite::memory:', secretKey: oldKey, secretKeyPrevious: undefined });
    const sealed = before.box.seal('plain', 'webhook:x');
    const during = loadSecretKeys({ databaseUrl: 'sqlite::memory:', secretKey: newKey, secretKeyPrevious: oldKey });
    expect(during.box.open(sealed, 'webhook:x')).toBe('plain');
    expect(during.box.isCurrent(sealed)).toBe(false);
    expect(during.box.isCurrent(during.box.seal('plain', 'webhook:x'))).toBe(true);
  });
});
