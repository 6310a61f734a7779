import { randomAlphanumeric } from '../auth/random-string.js';
import { hashToken } from '../auth/token-hash.js';

/** D10: 40 characters from [A-Za-z0-9], no prefix; only its SHA-256 is stored. */
export function generateProjectApiToken(): { plainText: string; hash: string } {
  const plainText = randomAlphanumeric(40);
  return { plainText, hash: hashToken(plainText) };
}

/** D10's shape; a bearer value without it is dismissed before any database lookup. */
export function isWellFormedProjectApiToken(value: string): boolean {
  return /^[A-Za-z0-9]{40}$/.test(value);
}
