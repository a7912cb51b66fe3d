/** What the eval suites (test/eval/) share: a run's options, and the shipped tasks by name. */
import { DEFAULT_CONTEXT_TOKENS } from '../../src/agent/windows.js';
import type { EvalOptions } from '../../src/eval/runner.js';
import { type EvalTask, findTasks } from '../../src/eval/task.js';

/**
 * The options of an eval run with `model` (a scripted one): one task at a time, no price, no wait
 * for a model outage, and limits no task of the suite meets unless it is about them; `limits` and
 * `more` change what a suite needs changed.
 */
export function evalOptions(
  model: EvalOptions['model'],
  limits: Partial<EvalOptions['limits']> = {},
  more: Partial<EvalOptions> = {},
): EvalOptions {
  return {
    model,
    modelId: 'scripted',
    price: null,
    contextTokens: DEFAULT_CONTEXT_TOKENS,
    limits: { maxSteps: 20, maxWallMs: 60_000, maxTokens: 1_000_000, maxFilesChanged: 20, ...limits },
    concurrency: 1,
    modelOutageWaitMs: 0,
    ...more,
  };
}

/** The shipped tasks (eval/), and one of them by its name. */
export async function shippedTasks(): Promise<{ tasks: EvalTask[]; task: (name: string) => EvalTask }> {
  const tasks = await findTasks(['eval']);
  return { tasks, task: (name) => tasks.find((each) => each.name === name) as EvalTask };
}
