import * as crypto from 'node:crypto';

/** What identifies an issue across runs (E1.2); never its line number, so a moved issue keeps it. */
export interface FingerprintSource {
  analyzerId: string;
  /** `location.file`, or null when the issue has no location. */
  file: string | null;
  message: string;
  /** The trimmed text of the code snippet's target line, or null when there is none. */
  targetLineText: string | null;
  /** Only orders duplicates (the occurrence number); not part of the fingerprint. */
  line: number | null;
}

/**
 * E1.2: the fingerprints of one report's issues, in the order given. A fingerprint is the first 32
 * hex digits of the SHA-256 of the JSON array
 *   ["scoreboard/v1", analyzer id, file or null, message, target line text or null, occurrence]
 * where `occurrence` numbers the issues of the report that share the other four, from 0, in order
 * of line (issues without a line last) and then of position in the upload. JSON makes the encoding
 * unambiguous (no separator can be forged) and the same on every instance and database, forever:
 * the recipe may only ever change under a new version tag.
 */
export function fingerprintIssues(issues: readonly FingerprintSource[]): string[] {
  // Each key's position, or positions once it recurs: most keys occur once, and a list for each of
  // a 75,000-issue upload's keys was a tenth of the thread heap fingerprinting took.
  const byKey = new Map<string, number | number[]>();
  issues.forEach((issue, index) => {
    const key = JSON.stringify([FINGERPRINT_VERSION, issue.analyzerId, issue.file, issue.message, issue.targetLineText]);
    const positions = byKey.get(key);
    if (positions === undefined) byKey.set(key, index);
    else if (typeof positions === 'number') byKey.set(key, [positions, index]);
    else positions.push(index);
  });

  const fingerprints = new Array<string>(issues.length);
  for (const [key, positions] of byKey) {
    if (typeof positions === 'number') {
      fingerprints[positions] = digest(`${key.slice(0, -1)},0]`);
      continue;
    }
    positions.sort((a, b) => lineOrder(issues[a]!.line) - lineOrder(issues[b]!.line) || a - b);
    positions.forEach((position, occurrence) => {
      fingerprints[position] = digest(`${key.slice(0, -1)},${occurrence}]`);
    });
  }
  return fingerprints;
}

const FINGERPRINT_VERSION = 'scoreboard/v1';

/** Hex digits in a fingerprint. */
export const FINGERPRINT_LENGTH = 32;

const lineOrder = (line: number | null) => (line === null ? Number.MAX_SAFE_INTEGER : line);

/**
 * SHA-256 in hex. `crypto.hash` (Node 20.12+) hashes a short string in one call, about 2.5 times
 * faster than a Hash object, which matters at thousands of issues per upload; older Node 20
 * releases take the Hash object.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

const digest = (text: string) => sha256Hex(text).slice(0, FINGERPRINT_LENGTH);

/** The trimmed text of a code snippet's target line, or null (E1.2). */
export function targetLineText(snippet: { target_line: number | null; lines: Record<string, string> } | undefined): string | null {
  if (!snippet || snippet.target_line === null) return null;
  const text = snippet.lines[String(snippet.target_line)];
  return text === undefined ? null : text.trim();
}
