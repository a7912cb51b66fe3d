/** Output helpers shared by the commands: JSON for machines, short lines for people. */

export interface OutputOptions {
  json?: boolean;
}

export function print(options: OutputOptions, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** A failure the user can act on: printed as one line (or a JSON object), exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly code = 'cli_error',
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function table(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
