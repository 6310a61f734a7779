/**
 * The entry point of a password-hashing thread (sessions/hashing-lane.ts): one scrypt derivation
 * per task, synchronous on this thread, so that libuv's pool is left to file, DNS and zlib work.
 * Loads nothing but node:crypto.
 */
import { scryptSync } from 'node:crypto';
import type { DeriveRequest } from './password-hash.js';

export function derive({ password, salt, keyLength, options }: DeriveRequest): Uint8Array {
  return scryptSync(password, salt, keyLength, options);
}
