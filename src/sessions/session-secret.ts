import { createHmac, randomBytes } from 'node:crypto';

/**
 * A session's secret is the cookie's value: 32 random bytes, base64url. The database keeps only its
 * SHA-256 (auth/token-hash.ts), like every other credential (D9).
 */
export function newSessionSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The shape of a secret: anything else is dismissed before a database lookup. */
export function isWellFormedSessionSecret(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/**
 * E7: the CSRF token of a session, derived from its secret rather than stored: only the holder of
 * the cookie (the server, the page that signed in) can compute it, and a page of another origin can
 * neither read the cookie nor the answer that carries the token.
 */
export function csrfTokenFor(secret: string): string {
  return createHmac('sha256', secret).update('scoreboard csrf token').digest('base64url');
}
