import { describe, expect, it } from 'vitest';
import { ABILITIES, hasAbility, normalizeAbilities, parseStoredAbilities, type Ability } from '../../src/auth/abilities.js';

// D6: admin includes write, which includes read.
describe('hasAbility (D6)', () => {
  const cases: [Ability[], Ability, boolean][] = [
    [['read'], 'read', true],
    [['read'], 'write', false],
    [['read'], 'admin', false],
    [['write'], 'read', true],
    [['write'], 'write', true],
    [['write'], 'admin', false],
    [['admin'], 'read', true],
    [['admin'], 'write', true],
    [['admin'], 'admin', true],
    [['read', 'write'], 'admin', false],
    [['read', 'admin'], 'write', true],
    [[], 'read', false],
  ];
  it.each(cases)('%j grants %s: %s', (granted, required, expected) => {
    expect(hasAbility(granted, required)).toBe(expected);
  });
});

describe('normalizeAbilities (D6)', () => {
  it.each([
    [
      ['admin', 'read', 'read'],
      ['read', 'admin'],
    ],
    [
      ['admin', 'write', 'read'],
      ['read', 'write', 'admin'],
    ],
    [['write', 'write'], ['write']],
    [['read'], ['read']],
    [[], []],
  ] as [Ability[], Ability[]][])('%j becomes %j', (input, expected) => {
    expect(normalizeAbilities(input)).toEqual(expected);
  });

  it('does not modify its input', () => {
    const input: Ability[] = ['admin', 'read'];
    normalizeAbilities(input);
    expect(input).toEqual(['admin', 'read']);
  });

  it('knows exactly read, write, admin in that order', () => {
    expect([...ABILITIES]).toEqual(['read', 'write', 'admin']);
  });
});

describe('parseStoredAbilities', () => {
  it('parses, deduplicates and orders a stored JSON array', () => {
    expect(parseStoredAbilities('["admin","read","admin"]')).toEqual(['read', 'admin']);
  });

  it('drops unknown values and anything that is not an array', () => {
    expect(parseStoredAbilities('["read","root",1,null]')).toEqual(['read']);
    expect(parseStoredAbilities('"admin"')).toEqual([]);
    expect(parseStoredAbilities('{"admin":true}')).toEqual([]);
    expect(parseStoredAbilities('null')).toEqual([]);
  });
});
