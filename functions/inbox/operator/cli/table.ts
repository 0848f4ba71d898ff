/** A cell as text: nothing for null, JSON for objects. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\s+/g, ' ');
}

/**
 * Rows as an aligned text table for a terminal, with the columns in the order given (the field names
 * of `--json` as headers, so both read the same), or `(none)` when there is no row.
 *
 * @example
 * ```ts
 * textTable([{ consumer: 'ship-orders', processed: 12 }], ['consumer', 'processed'])
 * // consumer     processed
 * // ship-orders  12
 * ```
 */
export function textTable(rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = [columns as string[], ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)));
  return cells.map((line) => line.map((text, index) => (index === line.length - 1 ? text : text.padEnd(widths[index]!))).join('  ').trimEnd()).join('\n');
}
