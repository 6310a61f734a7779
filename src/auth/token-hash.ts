import { createHash } from 'node:crypto';

/**
 * D9/D10: secrets are stored and looked up as their SHA-256. Comparing hashes through an indexed
 * equality lookup means the plain text is never compared byte by byte against stored data.
 */
export function hashToken(plainText: string): string {
  return createHash('sha256').update(plainText, 'utf8').digest('hex');
}
