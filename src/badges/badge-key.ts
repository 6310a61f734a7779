import { randomAlphanumeric } from '../auth/random-string.js';

/**
 * E2.2: the secret in a project's public badge URLs, `/badges/{key}/score.svg`. It is neither kind
 * of token (D9's `service_...`, D10's 40 characters), so it can never be mistaken for one: it
 * authenticates nothing and grants nothing but the badge data (score and gate of the latest report).
 *
 * 32 characters from [A-Za-z0-9] (about 190 bits): safe in a URL path as is, and too many to guess.
 * It is stored as is, not hashed, because `GET /projects/{project}/badges` shows it back.
 */
export const BADGE_KEY_LENGTH = 32;

const BADGE_KEY_SHAPE = new RegExp(`^[A-Za-z0-9]{${BADGE_KEY_LENGTH}}$`);

export function generateBadgeKey(): string {
  return randomAlphanumeric(BADGE_KEY_LENGTH);
}

/** A key without the shape names no project: answered 404 without a database lookup. */
export function isWellFormedBadgeKey(value: string): boolean {
  return BADGE_KEY_SHAPE.test(value);
}
