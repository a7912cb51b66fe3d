import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { type EvalOptions, runTask } from '../../src/eval/runner.js';
import { answer, callTools, type ModelTurn, mockModel, scriptedModel } from '../support/agent-fixture.js';
import { evalOptions, shippedTasks } from '../support/eval-fixture.js';

// The eval tasks that pass only when the agent runs the project's own checker (`run_command`) and
// fixes what it reports (docs/checks.md and docs/evaluation.md), in the real sandbox: the task's check command
// must pass on the result, and a setup installs a checker from a file: dependency, offline.

const MiB = 1024 * 1024;
const status = await sandboxStatus({ unlimited: false });
const { tasks, task } = await shippedTasks();

const options = (model: EvalOptions['model']) =>
  evalOptions(
    model,
    { maxWallMs: 120_000 },
    { sandbox: { processes: 256, memoryBytes: 1024 * MiB, diskBytes: 256 * MiB, unlimited: false } },
  );

/** The text of the tool results the model was last handed, or '' when the last message is not one. */
function lastToolOutput(call: LanguageModelV3CallOptions): string {
  const last = call.prompt.at(-1);
  if (last?.role !== 'tool') return '';
  return last.content
    .map((part) => {
      if (part.type !== 'tool-result') return '';
      const { output } = part;
      return output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
    })
    .join('\n');
}

type Edit = [path: string, oldText: string, newText: string];

/**
 * An agent that does what a person would: runs the checker, makes the edits that what it printed
 * calls for (`fixes` reads the output), runs it again, and answers. Every output it read is kept.
 */
function diligentAgent(command: string, fixes: (output: string) => Edit[]) {
  const outputs: string[] = [];
  let step = 0;
  const model = mockModel(async (call): Promise<ModelTurn> => {
    step += 1;
    const output = lastToolOutput(call);
    if (step === 1) return callTools([['run_command', { command }]]);
    if (step === 2) {
      outputs.push(output);
      const edits = fixes(output);
      if (edits.length === 0) return answer('The checker found nothing to fix.');
      return callTools(
        edits.map(([path, oldText, newText]) => [
          'edit_file',
          { path, old_text: oldText, new_text: newText },
        ]),
      );
    }
    if (step === 3) return callTools([['run_command', { command }]]);
    outputs.push(output);
    return answer('Fixed what the checker reported.');
  });
  return { model, outputs };
}

describe.skipIf(!status.available)('tasks that need the project checker (the real sandbox)', () => {
  it('ships one such task per site style', () => {
    const withCommands = tasks.filter((each) => each.command && each.agentCommands);
    expect(withCommands.map((each) => each.name).sort()).toEqual([
      'mintlify-terminology-check',
      'mkdocs-lint-code-blocks',
      'readme-version-check',
    ]);
    expect(task('mkdocs-lint-code-blocks').setup).toMatch(/^npm install --offline/);
  });

  it('passes when the agent runs the release check, fixes each README it names and runs it again', async () => {
    const agent = diligentAgent('node scripts/check-versions.mjs', (output) =>
      [...output.matchAll(/^(\S+README\.md): states version (\S+), but package\.json is at (\S+)$/gm)].map(
        ([, path = '', stated = '', version = '']) =>
          [path, `Current version: ${stated}`, `Current version: ${version}`] as Edit,
      ),
    );
    const outcome = await runTask(task('readme-version-check'), options(agent.model));
    expect(agent.outputs[0]).toMatch(/^Exit code: 1\./);
    expect(agent.outputs[0]).toContain('packages/retry/README.md: states version 1.3.0');
    expect(agent.outputs[0]).toContain('packages/log/README.md: states version 1.2.1');
    expect(agent.outputs[1]).toMatch(
      /^Exit code: 0\.\nIts output:\nAll package READMEs state their version\./,
    );
    expect(outcome).toMatchObject({ name: 'readme-version-check', passed: true, failures: [] });
  });

  it('passes when the agent runs the terminology check and changes each term it flags', async () => {
    const agent = diligentAgent('node scripts/check-terms.mjs', (output) =>
      [...output.matchAll(/^(\S+\.mdx):\d+: use "([^"]+)", not "([^"]+)"$/gm)].map(
        ([, path = '', use = '', not = '']) => [path, not, use] as Edit,
      ),
    );
    const outcome = await runTask(task('mintlify-terminology-check'), options(agent.model));
    expect(agent.outputs[0]).toContain('guides/teams.mdx:14: use "email", not "e-mail"');
    expect(agent.outputs[1]).toMatch(/^Exit code: 0\./);
    expect(outcome.failures).toEqual([]);
  });

  it('installs the lint from a file: dependency offline in the setup, and passes when the agent fixes what it reports', async () => {
    const agent = diligentAgent('npx --offline beacon-lint', (output) =>
      [...output.matchAll(/^(\S+\.md):\d+: a code block without a language$/gm)].map(
        ([, path = '']) => [path, '```\nsudo usermod', '```bash\nsudo usermod'] as Edit,
      ),
    );
    const outcome = await runTask(task('mkdocs-lint-code-blocks'), options(agent.model));
    expect(agent.outputs[0]).toMatch(/^Exit code: 1\./);
    expect(agent.outputs[0]).toContain('docs/troubleshooting.md:15: a code block without a language');
    expect(agent.outputs[1]).toContain('beacon-lint: no problems.');
    expect(outcome.failures).toEqual([]);
  });

  it('fails when the agent fixes what it guessed instead of running the checker, and says what the checker reported', async () => {
    const model = scriptedModel([
      callTools([
        [
          'edit_file',
          {
            path: 'packages/retry/README.md',
            old_text: 'Current version: 1.3.0',
            new_text: 'Current version: 1.4.0',
          },
        ],
      ]),
      answer('Updated the retry README.'),
    ]);
    const outcome = await runTask(task('readme-version-check'), options(model));
    expect(outcome.passed).toBe(false);
    expect(outcome.failures).toEqual([
      'packages/log/README.md: does not contain "Current version: 1.4.0"',
      expect.stringMatching(
        /^command: `node scripts\/check-versions\.mjs` failed \(exit code 1\)\.\nIts output:\npackages\/log\/README\.md: states version 1\.2\.1/,
      ),
    ]);
  });

  it('fails a task whose checker the agent never ran and whose problems it left', async () => {
    const outcome = await runTask(
      task('mintlify-terminology-check'),
      options(scriptedModel([answer('The wording looks fine to me.')])),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.failures).toContainEqual(
      expect.stringMatching(/^command: [\s\S]*guides\/webhooks\.mdx:10: use "allowlist", not "whitelist"/),
    );
  });
});
