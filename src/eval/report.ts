/** How an eval is shown: a table for people, the report object for `--json` and `--out`. */
import { formatUsd } from '../domain/job.js';
import type { EvalReport } from './runner.js';

/**
 * The table: task, pass, steps, tokens, cost, seconds, the first failed expectation; then the
 * totals, whose seconds are the eval's wall-clock time (tasks run side by side).
 */
export function formatReport(report: EvalReport): string {
  const rows = [
    ['TASK', 'PASS', 'STEPS', 'TOKENS', 'COST', 'SECONDS', 'FIRST FAILURE'],
    ...report.tasks.map((task) => [
      task.name,
      task.passed ? 'yes' : 'no',
      String(task.steps),
      String(task.inputTokens + task.outputTokens),
      formatUsd(task.costUsd),
      task.seconds.toFixed(1),
      task.failures[0] ?? '',
    ]),
  ];
  const sum = (pick: (task: EvalReport['tasks'][number]) => number) =>
    report.tasks.reduce((total, task) => total + pick(task), 0);
  const costs = report.tasks.map((task) => task.costUsd);
  const cost = costs.some((each) => each === null) ? null : sum((task) => task.costUsd ?? 0);
  rows.push([
    'total',
    `${report.passed}/${report.total}`,
    String(sum((task) => task.steps)),
    String(sum((task) => task.inputTokens + task.outputTokens)),
    formatUsd(cost),
    report.seconds.toFixed(1),
    '',
  ]);
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n\nModel ${report.model}: ${report.passed} of ${report.total} passed (${Math.round(report.passRate * 100)}%).`;
}
