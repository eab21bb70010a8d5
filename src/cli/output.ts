import { stringifyJson } from '../lib/amounts.js';

/** How a table column is aligned. Numbers read best right-aligned. */
export type Align = 'left' | 'right';

/** One column of a table. */
export interface Column {
  header: string;
  align?: Align | undefined;
}

/** The shortest secret the writer scrubs; shorter strings would mangle ordinary output. */
const MIN_SECRET_LENGTH = 6;
const REDACTED = '[redacted]';

/**
 * Makes a value safe for one table cell: control characters (newlines, ANSI escapes sent by a service in a title)
 * become spaces, so a cell can neither break the layout nor drive the terminal.
 */
export function cleanCell(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? ' ' : ch;
  }
  return out;
}

function width(text: string): number {
  return [...text].length;
}

function pad(text: string, size: number, align: Align | undefined): string {
  const fill = ' '.repeat(Math.max(0, size - width(text)));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * Formats rows as an aligned plain-text table: a header line, a dashed rule, then one line per row, columns two
 * spaces apart. Missing cells are blank. Ends with a newline.
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) => columns.map((_, i) => cleanCell(row[i] ?? '')));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((row) => width(row[i] ?? ''))));
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => pad(v, widths[i] ?? 0, columns[i]?.align))
      .join('  ')
      .trimEnd();
  const lines = [line(columns.map((c) => c.header)), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
  return `${lines.join('\n')}\n`;
}

/** Formats label/value pairs as two aligned columns (`label  value`), for one record. Ends with a newline. */
export function formatFields(pairs: readonly (readonly [string, string])[]): string {
  const size = Math.max(0, ...pairs.map(([label]) => width(label)));
  return pairs.map(([label, value]) => `${pad(label, size, 'left')}  ${cleanCell(value)}`.trimEnd()).join('\n') + '\n';
}

/** Where the CLI writes. Every write passes through the secret filter; nothing else in src/cli touches the streams. */
export interface CliOutput {
  /** Writes text to stdout. */
  out(text: string): void;
  /** Writes text to stderr. */
  err(text: string): void;
  /** Writes one JSON document to stdout (bigint as decimal strings, 2-space indent). */
  json(value: unknown): void;
  /** Removes every known secret from a text. */
  redact(text: string): string;
}

/** A writable stream as the output needs it. */
export interface TextSink {
  write(text: string): unknown;
}

/**
 * Creates the CLI writer. `secrets` is read at each write (the API key is known only once the options are parsed)
 * and every occurrence is replaced, so a key echoed back by a service in an error body never reaches the terminal.
 */
export function createOutput(
  secrets: () => readonly (string | undefined)[],
  streams: { stdout: TextSink; stderr: TextSink } = { stdout: process.stdout, stderr: process.stderr },
): CliOutput {
  const redact = (text: string): string => {
    let out = text;
    for (const secret of secrets()) {
      if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
    }
    return out;
  };
  return {
    out: (text) => void streams.stdout.write(redact(text)),
    err: (text) => void streams.stderr.write(redact(text)),
    json: (value) => void streams.stdout.write(redact(`${stringifyJson(value, 2)}\n`)),
    redact,
  };
}

/**
 * Ends the process quietly when the reader of stdout goes away (`jup-keeper tokens recent | head`): EPIPE is not a
 * failure of the command. Any other stream error is reported on one line with exit status 1.
 */
export function exitOnBrokenPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`error: cannot write output: ${err.message}\n`);
    process.exit(1);
  });
}
