import { ISSUE_FINDING_COLUMNS } from '../store/report-rows.js';
import { documentInPieces } from './export-pieces.js';
import type { ExportIssue } from './export-rows.js';
import type { ExportStates } from './export-states.js';

/** E3: the issue's columns, in this order. */
export const CSV_ISSUE_COLUMNS = [...ISSUE_FINDING_COLUMNS, 'fingerprint', 'change'] as const;

/** E3's header, then (E8.7) the issue's state at export time as the last column. */
export const CSV_COLUMNS = [...CSV_ISSUE_COLUMNS, 'state'] as const;

/**
 * Characters a spreadsheet reads as the start of a formula (or, tab and carriage return, that
 * some read past to one): OWASP's list, which E3 adopts.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180 2.6: fields holding these are quoted; and (D35) a field holding `;` or a tab, so that a
 * spreadsheet that splits on those sees the whole field, never a cell starting with `=`.
 */
const NEEDS_QUOTES = /[",\r\n;\t]/;

/**
 * One field. Text starting like a formula gets a `'` in front (E3), so that a spreadsheet shows it
 * as text instead of running it; then RFC 4180's quoting applies to what is written. Numbers are
 * written as they are, and null is an empty field.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A record: fields separated by commas, ended by CRLF (RFC 4180 2.1, also after the last record). */
export function csvRecord(values: readonly (string | number | null)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/**
 * The CSV document, piece by piece (export-pieces.ts): the header, then the issues, each ending
 * with its state (E8.7). UTF-8 without a byte order mark: E3 puts the header first, and the media
 * type already says `charset=utf-8` (Excel users open it with Data > From Text/CSV, which reads UTF-8).
 */
export function csvDocument(
  batches: AsyncIterable<readonly ExportIssue[]>,
  states: Pick<ExportStates, 'statusOf'>,
): AsyncGenerator<string> {
  return documentInPieces(
    csvRecord(CSV_COLUMNS),
    batches,
    (issue) => csvRecord([...CSV_ISSUE_COLUMNS.map((column) => issue[column]), states.statusOf(issue.fingerprint)]),
    '',
  );
}
