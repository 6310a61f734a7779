/**
 * E1.2: an issue's fingerprint is 32 lowercase hex digits derived only from the analyzer id, the
 * file, the message and the trimmed text of the code snippet's target line; a moved issue keeps it;
 * issues of one report that share all four are told apart by an occurrence number, in order of line
 * then position; the same input gives the same fingerprint forever (the golden values below).
 */
import { describe, expect, it } from 'vitest';
import { fingerprintIssues, targetLineText, type FingerprintSource } from '../../src/reports/changes/fingerprint.js';

const issue = (overrides: Partial<FingerprintSource> = {}): FingerprintSource => ({
  analyzerId: 'sql-injection',
  file: 'app/Http/Controllers/ShopController.php',
  message: 'Raw query with user input',
  targetLineText: 'DB::select("select * from users where id = $id");',
  line: 42,
  ...overrides,
});
const one = (source: FingerprintSource) => fingerprintIssues([source])[0]!;

describe('issue fingerprints (E1.2)', () => {
  it('is 32 lowercase hex digits', () => {
    expect(one(issue())).toMatch(/^[0-9a-f]{32}$/);
  });

  // Computed once from the recipe (SHA-256 of the JSON array, first 32 hex digits) and frozen here:
  // a change to the recipe breaks these, as it would break every stored fingerprint.
  it('never changes: golden values of the v1 recipe', () => {
    expect(one(issue())).toBe('0cf7b12b763cc20a5870fd4f48ff74b3');
    expect(one(issue({ file: null, targetLineText: null, line: null }))).toBe('d935fdd378fcbac2a81df8aa64fc2700');
  });

  it('keeps the fingerprint of an issue that only moved to another line', () => {
    expect(one(issue({ line: 52 }))).toBe(one(issue({ line: 42 })));
    expect(one(issue({ line: null }))).toBe(one(issue()));
  });

  it.each([
    ['analyzer', { analyzerId: 'xss' }],
    ['file', { file: 'app/Other.php' }],
    ['file absent', { file: null }],
    ['message', { message: 'Raw query with user input!' }],
    ['target line text', { targetLineText: 'DB::select($sql);' }],
    ['target line absent', { targetLineText: null }],
  ])('changes with the %s', (_what, change) => {
    expect(one(issue(change))).not.toBe(one(issue()));
  });

  it('cannot be forged by moving text between the parts', () => {
    expect(one(issue({ file: 'a', message: 'b|c' }))).not.toBe(one(issue({ file: 'a|b', message: 'c' })));
    expect(one(issue({ file: null, message: 'x' }))).not.toBe(one(issue({ file: 'null', message: 'x' })));
  });

  it('tells duplicates apart, numbering them by line then position, so every fingerprint of a report is unique', () => {
    const fingerprints = fingerprintIssues([issue({ line: 30 }), issue({ line: 10 }), issue({ line: null }), issue({ line: 10 })]);
    expect(new Set(fingerprints).size).toBe(4);
    // The first by line is the one a lone issue would get.
    expect(fingerprints[1]).toBe(one(issue({ line: 10 })));
    // Occurrences follow line, then position: line 10 (second in the upload), line 30, no line.
    const again = fingerprintIssues([issue({ line: 10 }), issue({ line: 10 }), issue({ line: 30 }), issue({ line: null })]);
    expect([fingerprints[1], fingerprints[3], fingerprints[0], fingerprints[2]]).toEqual(again);
  });

  it('gives a duplicate that moved the same fingerprints as before', () => {
    const before = fingerprintIssues([issue({ line: 10 }), issue({ line: 20 })]);
    const after = fingerprintIssues([issue({ line: 15 }), issue({ line: 25 })]);
    expect(after).toEqual(before);
  });
});

describe('the target line text', () => {
  it('is the trimmed text of the snippet line numbered target_line', () => {
    expect(targetLineText({ target_line: 3, lines: { '2': 'a', '3': '    $x = 1;\t', '4': 'b' } })).toBe('$x = 1;');
  });

  it('is null without a snippet, a target line, or that line', () => {
    expect(targetLineText(undefined)).toBeNull();
    expect(targetLineText({ target_line: null, lines: { '1': 'a' } })).toBeNull();
    expect(targetLineText({ target_line: 9, lines: { '1': 'a' } })).toBeNull();
  });
});
