import { describe, expect, it } from 'vitest';
import { exceedsJsonValues, processUploadBytes, UPLOAD_MAX_ISSUES, UPLOAD_MAX_VALUES } from '../../src/reports/upload/process-upload.js';
import { heavyReport } from '../../bench/heavy-reports.js';

/**
 * D28: what an upload may cost (upload/process-upload.ts). Its JSON values are counted in its bytes
 * before it is parsed, its issues once it is valid; beyond either limit it is refused as too costly.
 */
describe('the cost of an upload (D28)', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  /** The least `max` that `text` does not exceed: the count of values it bounds. */
  const countOf = (text: string) => {
    let max = 0;
    while (exceedsJsonValues(bytes(text), max)) max++;
    return max;
  };

  it('counts commas, colons and opening brackets outside strings', () => {
    expect(countOf('{}')).toBe(1);
    expect(countOf('[1,2,3]')).toBe(3);
    expect(countOf('{"a":1,"b":[true,null]}')).toBe(6);
    expect(countOf('"plain"')).toBe(0);
    expect(countOf('12')).toBe(0);
  });

  it('skips what strings hold, escaped quotes and backslashes included', () => {
    expect(countOf('{"a,b:[{":"x,y:{[","c":"\\",:[{"}')).toBe(4);
    expect(countOf('["\\\\",1]')).toBe(2);
    expect(countOf('["\\u0022,",1]')).toBe(2);
    // Multi-byte UTF-8 never holds an ASCII byte.
    expect(countOf('["é,ü:日本,",1]')).toBe(2);
    // An unterminated string: counting stops with the bytes.
    expect(countOf('[1,"a,b,c')).toBe(2);
  });

  it("admits D28's benchmark report (9 MiB, 75,000 issues) well within both limits", () => {
    const report = heavyReport(50, 1_500);
    expect(exceedsJsonValues(report, UPLOAD_MAX_VALUES / 1.5)).toBe(false);
    expect(processUploadBytes(report).kind).toBe('processed');
  });

  it('refuses a body of millions of tiny values before parsing it', () => {
    const hostile = bytes(`{"results":[],"metadata":{"x":[${'{},'.repeat(UPLOAD_MAX_VALUES / 2)}{}]}}`);
    expect(processUploadBytes(hostile)).toEqual({ kind: 'too-costly' });
    // A body of exactly the limit's count is parsed.
    const within = bytes(`{"results":[],"metadata":{"x":[${'0,'.repeat(UPLOAD_MAX_VALUES - 8)}0]}}`);
    expect(exceedsJsonValues(within, UPLOAD_MAX_VALUES)).toBe(false);
    expect(processUploadBytes(within).kind).toBe('processed');
  });

  it('refuses more issues than UPLOAD_MAX_ISSUES once the body is valid, counting suppressed ones and PHP-keyed lists', () => {
    const issue = '{"message":"","severity":"low"}';
    const list = (count: number) => `[${Array.from({ length: count }, () => issue).join(',')}]`;
    const keyed = (count: number) => `{${Array.from({ length: count }, (_, i) => `"${i}":${issue}`).join(',')}}`;
    const half = UPLOAD_MAX_ISSUES / 2;
    const body = (suppressed: string) =>
      bytes(
        `{"results":[{"analyzer_id":"a","status":"failed","issues":${list(half)}},` +
          `{"analyzer_id":"b","status":"passed","suppressed_issues":${suppressed}}]}`,
      );
    expect(processUploadBytes(body(keyed(half))).kind).toBe('processed');
    expect(processUploadBytes(body(keyed(half + 1)))).toEqual({ kind: 'too-costly' });
    expect(processUploadBytes(body(list(half + 1)))).toEqual({ kind: 'too-costly' });
    // An invalid body is answered as invalid (422), whatever its issues.
    expect(
      processUploadBytes(bytes(`{"results":[{"analyzer_id":"","status":"failed","issues":${list(UPLOAD_MAX_ISSUES + 1)}}]}`)).kind,
    ).toBe('invalid');
  });
});
