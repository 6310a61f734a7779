import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sqliteFileOf } from '../db/database.js';
import { createSecretBox, generateSecretKey, parseSecretKey, type SecretBox, type SecretKey } from './secret-box.js';

/** The file beside a SQLite database that holds its generated key (E9.2). */
export const SECRET_KEY_FILE = 'secret.key';

/** What the keys come from: SECRET_KEY and SECRET_KEY_PREVIOUS, and the database they seal for. */
export interface SecretKeySettings {
  readonly databaseUrl: string;
  readonly secretKey: string | undefined;
  readonly secretKeyPrevious: string | undefined;
}

/** Where the key came from, for the start-up log line (never the key). */
export type KeySource = 'SECRET_KEY' | 'secret.key' | 'generated secret.key' | 'in memory' | 'none';

/** The keys as loaded: the box, where its current key came from, and the key file when there is one. */
export interface LoadedKeys {
  box: SecretBox;
  source: KeySource;
  current: SecretKey | null;
  /** SECRET_KEY_PREVIOUS, during a rotation. */
  previous: SecretKey | null;
  /** The key file beside a SQLite database, when the key is (or was just generated) there. */
  file: string | null;
}

/** A key that is malformed, or a key file that cannot be read or written: an operator's mistake, named without the key. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/**
 * E9.2: the service's secret box. SECRET_KEY when set; else, for a SQLite database in a file, the
 * key in `secret.key` beside it, generated there (mode 0600) at the first start: the database file
 * and its key then travel together, and a backup of the database alone holds no usable secret only
 * if the operator keeps the key apart (README says so). An in-memory SQLite database gets a key for
 * the process's life. PostgreSQL without SECRET_KEY gets none: nothing is sealed, and what needs
 * sealing is refused (409) rather than stored under a key that lives on one instance's disk.
 *
 * Throws (with the variable's name, never the value) when a key is malformed or the key file
 * cannot be read or written.
 */
export function loadSecretKeys(settings: SecretKeySettings): LoadedKeys {
  const previous = settings.secretKeyPrevious ? parseNamed('SECRET_KEY_PREVIOUS', settings.secretKeyPrevious) : null;
  if (settings.secretKey) {
    const current = parseNamed('SECRET_KEY', settings.secretKey);
    return { box: createSecretBox(current, previous), source: 'SECRET_KEY', current, previous, file: null };
  }
  if (settings.databaseUrl === 'sqlite::memory:') {
    const current = parseSecretKey(generateSecretKey());
    return { box: createSecretBox(current, previous), source: 'in memory', current, previous, file: null };
  }
  const database = sqliteFileOf(settings.databaseUrl);
  if (database === null) return { box: createSecretBox(null, previous), source: 'none', current: null, previous, file: null };
  const file = join(dirname(database), SECRET_KEY_FILE);
  const { text, generated } = readOrCreateKeyFile(file);
  const current = parseNamed(file, text);
  return { box: createSecretBox(current, previous), source: generated ? 'generated secret.key' : 'secret.key', current, previous, file };
}

/** The start-up log line's words for where the key came from (never the key). */
export function describeKeySource(keys: Pick<LoadedKeys, 'source' | 'file' | 'previous'>): string {
  const previous = keys.previous ? '; SECRET_KEY_PREVIOUS opens what the previous key sealed' : '';
  switch (keys.source) {
    case 'SECRET_KEY':
      return `stored secrets are sealed with SECRET_KEY${previous}`;
    case 'secret.key':
      return `stored secrets are sealed with the key in ${keys.file}${previous}`;
    case 'generated secret.key':
      return `generated a key for stored secrets into ${keys.file} (mode 0600): back it up, apart from the database${previous}`;
    case 'in memory':
      return `stored secrets are sealed with a key generated for this process (DATABASE_URL is sqlite::memory:)${previous}`;
    case 'none':
      return 'no SECRET_KEY: connections cannot be stored, and webhook secrets are stored in plain text; set SECRET_KEY (openssl rand -base64 32)';
  }
}

function parseNamed(name: string, text: string): SecretKey {
  try {
    return parseSecretKey(text);
  } catch (error) {
    throw new SecretKeyError(`${name} ${(error as Error).message}; generate one with: openssl rand -base64 32`);
  }
}

/**
 * Reads the key file, or creates it with a new key. The key is written to a file of this process's
 * own (mode 0600 from its creation: never readable by others, not even for a moment), then linked
 * into place: a link fails if the name exists, so two processes starting at once on one database
 * never write two keys (the loser reads the winner's), and nobody ever reads a half-written file.
 */
function readOrCreateKeyFile(file: string): { text: string; generated: boolean } {
  // Most starts: the key is there (and the folder may be one this process cannot write to).
  try {
    return { text: readFileSync(file, 'utf8'), generated: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new SecretKeyError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const own = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(own, `${generateSecretKey()}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(own, file);
      return { text: readFileSync(file, 'utf8'), generated: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return { text: readFileSync(file, 'utf8'), generated: false };
    } finally {
      rmSync(own, { force: true });
    }
  } catch (error) {
    throw new SecretKeyError(`cannot read or create ${file}: ${(error as Error).message}`);
  }
}
