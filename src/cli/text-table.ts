/** A cell as shown: null as `-`, booleans as yes/no. */
export type Cell = string | number | boolean | null;

/**
 * Plain-text tables and field lists for the read commands' output without `--json`. Names and
 * emails come from users: control characters (a newline, or an escape sequence a terminal would
 * obey) are shown as U+FFFD so a stored value can neither break a row nor act on the terminal.
 */
export function formatTable(headers: string[], rows: Cell[][]): string {
  const cells = rows.map((row) => row.map(show));
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

/** `label: value` lines, the values aligned. */
export function formatFields(fields: Array<[string, Cell]>): string {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)} ${show(value)}`).join('\n');
}

function show(value: Cell): string {
  if (value === null) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value).replace(/[\u0000-\u001f\u007f-\u009f]/g, '\uFFFD');
}
