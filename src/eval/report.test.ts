import { describe, expect, it } from 'vitest';
import { formatReport } from './report.js';
import type { EvalReport, TaskOutcome } from './runner.js';

const task = (name: string, seconds: number): TaskOutcome => ({
  name,
  passed: true,
  failures: [],
  steps: 3,
  inputTokens: 100,
  outputTokens: 20,
  cachedInputTokens: 0,
  costUsd: 0.01,
  seconds,
});

describe('the eval table', () => {
  it("totals the eval's wall-clock seconds, not the sum of tasks that ran side by side", () => {
    const report: EvalReport = {
      model: 'scripted',
      total: 2,
      passed: 2,
      passRate: 1,
      seconds: 14.2,
      tasks: [task('one', 13.9), task('two', 12.4)],
    };
    const total = formatReport(report)
      .split('\n')
      .find((line) => line.startsWith('total'));
    expect(total?.split(/\s+/)).toEqual(['total', '2/2', '6', '240', '$0.0200', '14.2']);
  });
});
