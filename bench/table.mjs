// Prints a benchmark table as Markdown, so it can be pasted into docs/benchmarks.md as it is.
import os from 'node:os';

export function machine() {
  return `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`;
}

export function printTable(header, rows) {
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}
