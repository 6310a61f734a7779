import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generatePersonalAccessToken, isWellFormedPersonalAccessToken, TOKEN_PREFIX } from '../../src/auth/personal-access-token.js';
import { PERSONAL_ACCESS_TOKEN } from '../helpers/contract.js';

const checksum = (body: string) => crc32(body).toString(16).padStart(8, '0');
const BODY = 'Zz09AaBbCcDdEeFfGgHhIiJjKkLlMmNnOoPpQqRr';
const valid = `service_${BODY}${checksum(BODY)}`;

// D9: `service_` + 40 [A-Za-z0-9] + 8 lowercase hex digits of the CRC32 of those 40 characters.
describe('generatePersonalAccessToken (D9)', () => {
  it('has the prefix, a 40-character alphanumeric body and the CRC32 of the body: 56 characters', () => {
    for (let i = 0; i < 200; i++) {
      const token = generatePersonalAccessToken();
      expect(token).toHaveLength(56);
      const match = PERSONAL_ACCESS_TOKEN.exec(token);
      expect(match, token).not.toBeNull();
      expect(match![2]).toBe(checksum(match![1]!));
      expect(isWellFormedPersonalAccessToken(token)).toBe(true);
    }
  });

  it('is different every time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generatePersonalAccessToken()));
    expect(tokens.size).toBe(1000);
  });

  it('uses upper case, lower case and digits in the body', () => {
    const bodies = Array.from({ length: 50 }, () => generatePersonalAccessToken().slice(8, 48)).join('');
    expect(bodies).toMatch(/[A-Z]/);
    expect(bodies).toMatch(/[a-z]/);
    expect(bodies).toMatch(/[0-9]/);
  });

  it('exports the prefix service_', () => {
    expect(TOKEN_PREFIX).toBe('service_');
  });
});

describe('isWellFormedPersonalAccessToken (D9)', () => {
  it('accepts a token with the right shape and checksum', () => {
    expect(isWellFormedPersonalAccessToken(valid)).toBe(true);
  });

  it('pads a checksum with leading zeros to 8 digits', () => {
    // Find a body whose CRC32 is below 0x10000000, so its hex has a leading zero.
    let body = '';
    for (let i = 0; ; i++) {
      body = `${String(i).padStart(40, 'a')}`;
      if (crc32(body) < 0x10000000) break;
    }
    const token = `service_${body}${checksum(body)}`;
    expect(checksum(body).startsWith('0')).toBe(true);
    expect(isWellFormedPersonalAccessToken(token)).toBe(true);
    expect(isWellFormedPersonalAccessToken(`service_${body}${crc32(body).toString(16)}`)).toBe(false);
  });

  it.each([
    ['no prefix', `${BODY}${checksum(BODY)}`],
    ['another prefix', `servica_${BODY}${checksum(BODY)}`],
    ['upper-case prefix', `SERVICE_${BODY}${checksum(BODY)}`],
    ['prefix without underscore', `service${BODY}${checksum(BODY)}`],
  ])('rejects a wrong prefix (%s)', (_label, token) => {
    expect(isWellFormedPersonalAccessToken(token)).toBe(false);
  });

  it.each([
    ['39-character body', BODY.slice(1)],
    ['41-character body', `${BODY}a`],
    ['empty body', ''],
  ])('rejects a wrong length (%s) even with a matching checksum', (_label, body) => {
    expect(isWellFormedPersonalAccessToken(`service_${body}${checksum(body)}`)).toBe(false);
  });

  it('rejects a 7- or 9-digit checksum', () => {
    expect(isWellFormedPersonalAccessToken(valid.slice(0, -1))).toBe(false);
    expect(isWellFormedPersonalAccessToken(`${valid}0`)).toBe(false);
  });

  it.each([['-'], ['_'], [' '], ['é'], ['+'], ['/'], ['=']])('rejects a body containing %j', (char) => {
    const body = `${BODY.slice(0, 20)}${char}${BODY.slice(21)}`;
    expect(isWellFormedPersonalAccessToken(`service_${body}${checksum(body)}`)).toBe(false);
  });

  it('rejects a checksum written in upper case hex', () => {
    let body = BODY;
    for (let i = 0; !/[a-f]/.test(checksum(body)); i++) body = `${BODY.slice(0, 38)}${String(i).padStart(2, '0')}`;
    expect(isWellFormedPersonalAccessToken(`service_${body}${checksum(body).toUpperCase()}`)).toBe(false);
  });

  it('rejects a wrong checksum, and a body changed by one character', () => {
    const sum = checksum(BODY);
    const wrong = sum.slice(0, 7) + (sum[7] === '0' ? '1' : '0');
    expect(isWellFormedPersonalAccessToken(`service_${BODY}${wrong}`)).toBe(false);
    const typo = `x${BODY.slice(1)}`;
    expect(isWellFormedPersonalAccessToken(`service_${typo}${sum}`)).toBe(false);
  });

  it('rejects surrounding whitespace and newlines', () => {
    expect(isWellFormedPersonalAccessToken(` ${valid}`)).toBe(false);
    expect(isWellFormedPersonalAccessToken(`${valid}\n`)).toBe(false);
  });
});
