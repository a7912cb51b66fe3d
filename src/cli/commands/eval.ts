import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createLanguageModel, MissingProviderError } from '../../agent/models.js';
import { priceOf } from '../../agent/prices.js';
import { contextWindowOf } from '../../agent/windows.js';
import { loadConfig } from '../../config/config.js';
import { formatReport } from '../../eval/report.js';
import { runEval } from '../../eval/runner.js';
import { findTasks, TaskFileError } from '../../eval/task.js';
import { CliError } from '../output.js';

interface EvalOptions {
  model?: string;
  concurrency: string;
  json?: boolean;
  out?: string;
}

/**
 * `agentjobs eval [PATH…]`: runs task files with the real agent, in process, no server
 * (docs/evaluation.md). It measures and does not judge: the exit code is 0 whatever the pass rate, and non-zero only
 * when the eval could not run (no model, a bad task file).
 */
export function registerEvalCommand(program: Command) {
  program
    .command('eval')
    .description('Measure the agent on eval task files (default: the eval/ folder)')
    .argument('[paths...]', 'task files or folders of them', ['eval'])
    .option('--model <id>', 'the model, provider:model (default: AGENTJOBS_MODEL)')
    .option('--concurrency <n>', 'tasks run at once', '4')
    .option('--json', 'print the report as JSON')
    .option('--out <file>', 'also write the JSON report to this file')
    .action(async (paths: string[], options: EvalOptions) => {
      const concurrency = Number(options.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        throw new CliError(
          `--concurrency: expected a whole number from 1 to 64, got "${options.concurrency}".`,
        );
      const config = loadConfig();
      const modelId = options.model ?? config.defaultModel;
      let model: ReturnType<typeof createLanguageModel>;
      try {
        model = createLanguageModel(modelId, config);
      } catch (error) {
        // eval runs the agent here, with no server: the key belongs in this shell.
        if (error instanceof MissingProviderError)
          throw new CliError(
            `The model ${error.modelId} needs ${error.variable}, which is not set. eval runs the agent in this process, without a server: set it in this shell (export ${error.variable}=…), or choose another model with --model.`,
          );
        throw new CliError(error instanceof Error ? error.message : String(error));
      }
      const tasks = await findTasks(paths).catch((error: unknown) => {
        throw error instanceof TaskFileError ? new CliError(error.message) : error;
      });
      if (tasks.length === 0) throw new CliError(`No task files under ${paths.join(', ')}.`);
      const live = process.stderr.isTTY && !options.json;
      if (live)
        process.stderr.write(`Running ${tasks.length} tasks with ${modelId}, ${concurrency} at a time…\n`);
      const report = await runEval(tasks, {
        model,
        modelId: modelId as string,
        price: priceOf(modelId, config.modelPrices),
        contextTokens: contextWindowOf(modelId, config.agent.contextTokens),
        limits: { ...config.jobLimits },
        concurrency,
        stream: config.agent.modelStreaming,
        modelOutageWaitMs: config.agent.modelOutageWaitMs,
        sandbox: config.checks.sandbox,
        ...(live
          ? { onTask: (task) => process.stderr.write(`  ${task.passed ? 'pass' : 'FAIL'}  ${task.name}\n`) }
          : {}),
      });
      const json = `${JSON.stringify(report, null, 2)}\n`;
      if (options.out) await writeFile(options.out, json);
      process.stdout.write(options.json ? json : `${formatReport(report)}\n`);
    });
}
