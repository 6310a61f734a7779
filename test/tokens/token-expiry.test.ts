import { describe, expect, it } from 'vitest';
import { parseExpiry } from '../../src/tokens/token-expiry.js';

const iso = (text: string) => parseExpiry(text)?.toISOString() ?? null;

// D9: `expires_at` is an ISO 8601 date-time with offset, or YYYY-MM-DD meaning 00:00:00 UTC that day.
describe('parseExpiry (D9)', () => {
  describe('date only', () => {
    it.each([
      ['2027-01-01', '2027-01-01T00:00:00.000Z'],
      ['2028-02-29', '2028-02-29T00:00:00.000Z'],
      ['2027-12-31', '2027-12-31T00:00:00.000Z'],
    ])('reads %s as %s', (text, expected) => {
      expect(iso(text)).toBe(expected);
    });
  });

  describe('date-time with offset', () => {
    it.each([
      ['2027-01-01T10:00:00+02:00', '2027-01-01T08:00:00.000Z'],
      ['2027-01-01T10:00:00+0200', '2027-01-01T08:00:00.000Z'],
      ['2027-01-01T10:00:00-05:30', '2027-01-01T15:30:00.000Z'],
      ['2027-01-01T10:00:00Z', '2027-01-01T10:00:00.000Z'],
      ['2027-01-01T00:30:00+01:00', '2026-12-31T23:30:00.000Z'],
      ['2027-01-01T10:00Z', '2027-01-01T10:00:00.000Z'],
      ['2027-01-01T10:00:00.5Z', '2027-01-01T10:00:00.500Z'],
      ['2027-01-01T10:00:00.123Z', '2027-01-01T10:00:00.123Z'],
      ['2027-01-01T10:00:00.123456+02:00', '2027-01-01T08:00:00.123Z'],
    ])('reads %s as %s', (text, expected) => {
      expect(iso(text)).toBe(expected);
    });
  });

  describe('impossible calendar dates', () => {
    it.each([['2027-02-30'], ['2027-02-29'], ['2027-04-31'], ['2027-13-01'], ['2027-00-10'], ['2027-01-00'], ['2027-02-30T10:00:00Z']])(
      'rejects %s instead of rolling it over',
      (text) => {
        expect(parseExpiry(text)).toBeNull();
      },
    );

    it.each([['2027-01-01T24:00:00Z'], ['2027-01-01T10:60:00Z'], ['2027-01-01T10:00:60Z']])('rejects the time in %s', (text) => {
      expect(parseExpiry(text)).toBeNull();
    });
  });

  describe('junk', () => {
    it.each([
      ['tomorrow'],
      [''],
      ['   '],
      ['2027'],
      ['2027-01'],
      ['2027/01/01'],
      ['01/02/2027'],
      ['27-01-01'],
      ['2027-1-1'],
      ['1798761600'],
      ['Fri, 01 Jan 2027 00:00:00 GMT'],
      ['2027-01-01T10:00:00+2'],
      ['2027-01-01T10:00:00 junk'],
      ['2027-01-01 junk'],
      ['next week 2027-01-01'],
    ])('rejects %j', (text) => {
      expect(parseExpiry(text)).toBeNull();
    });
  });
});
