// What the commands that talk to a server print: aligned tables and
// key-value blocks for people, the server's JSON as it came for scripts
// (`--json`). Results go to stdout; notes about them (an empty list, a next
// page) go to stderr, so a pipe only ever sees the result.

export interface Column<T> {
  header: string;
  value: (row: T) => string;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** One line per row under upper-case headers, columns padded to their widest cell; `empty` is noted when there are no rows. */
export function printTable<T>(rows: readonly T[], columns: Column<T>[], empty: string): void {
  if (rows.length === 0) {
    note(empty);
    return;
  }
  const cells = [columns.map((c) => c.header.toUpperCase()), ...rows.map((row) => columns.map((c) => oneLine(c.value(row))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const text = cells.map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
  process.stdout.write(`${text.join('\n')}\n`);
}

/** One page of a list: as JSON with `--json`, else as a table with the next page's command noted. */
export function printPage<T>(page: { items: T[]; nextCursor?: string | null }, json: boolean | undefined, columns: Column<T>[], what: string): void {
  if (json) {
    printJson(page);
    return;
  }
  printTable(page.items, columns, `no ${what}`);
  if (page.nextCursor) note(`more: orca ${what} … --cursor ${page.nextCursor}`);
}

/** `label: value` lines, labels aligned. */
export function printFields(fields: [string, string][]): void {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  process.stdout.write(fields.map(([label, value]) => `${`${label}:`.padEnd(width)} ${value}`).join('\n') + '\n');
}

/** A value as compact JSON, cut to `max` characters so a table row stays one line. */
export function compact(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? '';
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function orDash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : String(value);
}

// A cell with a line break would break the table's alignment and whatever reads it line by line.
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}
