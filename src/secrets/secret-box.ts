import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * E9.2: secrets the service must use again in plain text (a connection's credentials, a webhook's
 * signing secret) are stored sealed with AES-256-GCM under SECRET_KEY, so that a copy of the
 * database (a backup, a dump, a stolen disk) holds no usable credential. Tokens and passwords are
 * not here: they are only ever compared, so they are hashed instead (D9).
 *
 * A sealed value is text, `sb1:<key id>:<iv>:<tag>:<ciphertext>` (base64url parts): the key id
 * (a digest of the key, never the key) says which key opens it, so that during a rotation values
 * sealed under SECRET_KEY_PREVIOUS still open and `scoreboard secrets:reencrypt` can tell which
 * ones to rewrite. The `context` (for example `connection:<id>`) is authenticated with the value:
 * a sealed value copied into another row does not open there.
 */

const PREFIX = 'sb1';
const IV_BYTES = 12;
const KEY_BYTES = 32;

/** A 32-byte key and the id stored with what it seals. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** Why a secret could not be sealed or opened; its message never holds the secret. */
export class SecretBoxError extends Error {
  constructor(
    readonly reason: 'no-key' | 'unknown-key' | 'tampered' | 'malformed',
    message: string,
  ) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/** Reads a key as SECRET_KEY gives it: 32 bytes, base64 (or base64url). */
export function parseSecretKey(text: string): SecretKey {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new SecretBoxError('malformed', `must be ${KEY_BYTES} bytes in base64 (it is ${key.length} bytes)`);
  return { id: keyId(key), key };
}

/** A new random key, in SECRET_KEY's form. */
export function generateSecretKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

function keyId(key: Buffer): string {
  return createHash('sha256').update('scoreboard secret key id\0').update(key).digest('base64url').slice(0, 8);
}

export interface SecretBox {
  /** False when no SECRET_KEY is configured (a PostgreSQL deployment without one): nothing can be sealed. */
  readonly canSeal: boolean;
  /** Seals `plain` under the current key; throws SecretBoxError('no-key') without one. */
  seal(plain: string, context: string): string;
  /** Opens a sealed value with whichever configured key sealed it. */
  open(sealed: string, context: string): string;
  /** Whether a stored value is sealed at all (webhook secrets stored before E9.2 are not). */
  isSealed(stored: string): boolean;
  /** Whether a stored value is sealed under the current key (else reencrypt rewrites it). */
  isCurrent(stored: string): boolean;
}

/**
 * A box over the current key and, during a rotation, the previous one. Both absent: a box that
 * seals nothing and opens nothing sealed (`canSeal` false).
 */
export function createSecretBox(current: SecretKey | null, previous: SecretKey | null = null): SecretBox {
  const keys = new Map<string, Buffer>();
  if (previous) keys.set(previous.id, previous.key);
  if (current) keys.set(current.id, current.key);
  return {
    canSeal: current !== null,
    seal(plain, context) {
      if (!current) throw new SecretBoxError('no-key', 'No SECRET_KEY is configured, so no secret can be stored.');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
      return [PREFIX, current.id, ...parts].join(':');
    },
    open(sealed, context) {
      const parts = sealed.split(':');
      if (parts.length !== 5 || parts[0] !== PREFIX) throw new SecretBoxError('malformed', 'The stored secret is not a sealed value.');
      const [, id, iv, tag, ciphertext] = parts as [string, string, string, string, string];
      const key = keys.get(id);
      if (!key) {
        throw new SecretBoxError(
          'unknown-key',
          'A stored secret was sealed under a key that is neither SECRET_KEY nor SECRET_KEY_PREVIOUS.',
        );
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('tampered', 'A stored secret does not open: it was changed, or moved from another row.');
      }
    },
    isSealed: (stored) => stored.startsWith(`${PREFIX}:`),
    isCurrent: (stored) => current !== null && stored.startsWith(`${PREFIX}:${current.id}:`),
  };
}
