import { crc32 } from 'node:zlib';
import { randomAlphanumeric } from './random-string.js';

/**
 * D9: `service_` + 40 characters from [A-Za-z0-9] + the 8 lowercase hex digits of the CRC32 of
 * those 40 characters: 56 characters in all. The checksum lets us reject typos and random guesses
 * without touching the database.
 */
export const TOKEN_PREFIX = 'service_';
const BODY_LENGTH = 40;
const SHAPE = /^service_([A-Za-z0-9]{40})([0-9a-f]{8})$/;

export function generatePersonalAccessToken(): string {
  const body = randomAlphanumeric(BODY_LENGTH);
  return `${TOKEN_PREFIX}${body}${checksum(body)}`;
}

/** True when the value has the D9 shape and a correct checksum. */
export function isWellFormedPersonalAccessToken(value: string): boolean {
  const match = SHAPE.exec(value);
  return match !== null && checksum(match[1]!) === match[2];
}

function checksum(body: string): string {
  return crc32(body).toString(16).padStart(8, '0');
}
