import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * E7: dashboard passwords are stored as scrypt hashes (memory-hard): `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`,
 * salt and hash in base64url. The parameters are stored with each hash, so they can be raised later
 * without breaking the passwords set before. N = 2^15, r = 8 takes 32 MiB and tens of milliseconds a
 * hash. Where the derivation runs is the caller's choice (`DeriveKey`): the service's own lane of
 * threads (hashing-lane.ts, D30), or libuv's pool for the operator's commands.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export const PASSWORD_MIN_LENGTH = 12;
/** A bound on what is hashed; any real passphrase fits. */
export const PASSWORD_MAX_LENGTH = 1024;

/** One scrypt derivation, as plain data that may cross to another thread. */
export interface DeriveRequest {
  /** NFC-normalised. */
  password: string;
  salt: Uint8Array;
  keyLength: number;
  options: ScryptOptions;
}

/** Runs one derivation somewhere; the key it answers. */
export type DeriveKey = (request: DeriveRequest) => Promise<Uint8Array>;

/** Hashing and checking passwords, with the derivation running where `DeriveKey` puts it. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Whether `password` matches `stored`; see `verifyWith`. */
  verify(password: string, stored: string | null): Promise<boolean>;
}

function deriveRequest(password: string, salt: Uint8Array, logN: number, r: number, p: number): DeriveRequest {
  const N = 2 ** logN;
  // Node refuses a derivation that needs more than `maxmem` (32 MiB by default): 128 * N * r bytes, with room.
  return { password: password.normalize('NFC'), salt, keyLength: KEY_LENGTH, options: { N, r, p, maxmem: 256 * N * r } };
}

/** A derivation on libuv's thread pool (the same pool as file, DNS and zlib work): for the operator's commands, one at a time. */
export const deriveOnLibuv: DeriveKey = ({ password, salt, keyLength, options }) =>
  new Promise((resolve, reject) => scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))));

export function passwordHasher(derive: DeriveKey): PasswordHasher {
  return {
    hash: (password) => hashWith(derive, password),
    verify: (password, stored) => verifyWith(derive, password, stored),
  };
}

async function hashWith(derive: DeriveKey, password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(deriveRequest(password, salt, LOG_N, R, P));
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), Buffer.from(key).toString('base64url')].join('$');
}

/** `scoreboard users:password` and `users:create --password-stdin`: on libuv's pool, in the operator's own process. */
export const hashPassword = (password: string) => hashWith(deriveOnLibuv, password);

/**
 * The hash of a random password nobody kept, with the same parameters as every new hash: checked
 * against when there is no user or no password, so that answer takes as long as a wrong password.
 * A constant, so even the first such check costs exactly one derivation.
 */
const STAND_IN_HASH = 'scrypt$15$8$1$8Nh_8w_ijjsvicWg3Pn9Vw$RqJBgaFkFmPnKOIIIgIF_xH5k2e4sWrYb__NgBQGyXU';

/**
 * Whether `password` matches `stored`. With no stored hash (unknown email, or a user without a
 * password) it still derives a key, from the stand-in, and answers false: the answer takes the same
 * time whichever it was (E7).
 */
async function verifyWith(derive: DeriveKey, password: string, stored: string | null): Promise<boolean> {
  const own = stored === null ? null : parseHash(stored);
  const parsed = own ?? parseHash(STAND_IN_HASH)!;
  const key = Buffer.from(await derive(deriveRequest(password, parsed.salt, parsed.logN, parsed.r, parsed.p)));
  return own !== null && key.length === own.key.length && timingSafeEqual(key, own.key);
}

function parseHash(stored: string): { logN: number; r: number; p: number; salt: Buffer; key: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20 || r > 32 || p > 4) return null;
  return { logN, r, p, salt: Buffer.from(parts[4]!, 'base64url'), key: Buffer.from(parts[5]!, 'base64url') };
}

/** E7's rule for a new password, as the message a person reads; null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password may not be greater than ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}
