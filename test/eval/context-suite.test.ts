import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval, runTask } from '../../src/eval/runner.js';
import { findTasks } from '../../src/eval/task.js';
import { answer, callsOf, callTools, type ModelTurn, scriptedModel } from '../support/agent-fixture.js';
import { evalOptions, shippedTasks } from '../support/eval-fixture.js';

// Eval tasks that name context repositories (docs/evaluation.md and §5): the shipped tasks that need the
// code, run with a scripted model, and task files whose context folders are refused.

const options = (turns: ModelTurn[]) => evalOptions(scriptedModel(turns));

const { tasks, task } = await shippedTasks();
const page = (path: string) => readFileSync(join('eval/sites/mintlify-acme', path), 'utf8');

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-eval-context-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the shipped suite’s context tasks', () => {
  it('has at least five tasks that read the code fixture as the repository "code"', () => {
    const withCode = tasks.filter((each) => each.context.length > 0);
    expect(withCode.length).toBeGreaterThanOrEqual(5);
    for (const each of withCode)
      expect(each.context).toEqual([{ name: 'code', siteDir: resolve('eval/sites/acme-code') }]);
    expect(task('mintlify-add-faq').context).toEqual([]);
  });

  it('passes an agent that documents the flag it read in the code', async () => {
    const flag =
      '<ParamField path="--wait-timeout" type="number" default="600">\n  Seconds to wait for the deployment to go live; `acme deploy` exits with 3 when they run out.\n</ParamField>\n\n## Exit codes';
    const eval_ = options([
      callTools([
        ['search_files', { repository: 'code', query: 'option.', path: 'src/cli/commands/deploy.ts' }],
      ]),
      callTools([['read_file', { repository: 'code', path: 'src/cli/commands/deploy.ts' }]]),
      callTools([['edit_file', { path: 'cli/deploy.mdx', old_text: '## Exit codes', new_text: flag }]]),
      answer('Document the --wait-timeout flag of acme deploy'),
    ]);
    const outcome = await runTask(task('code-document-deploy-flag'), eval_);
    expect(outcome).toMatchObject({ passed: true, failures: [], steps: 4 });

    // The tools read the code at the commit the runner made, and the prompt named it.
    const calls = callsOf(eval_.model as Parameters<typeof callsOf>[0]);
    expect(calls[0]?.prompt[0]?.content).toMatch(/- code: branch "main" at commit [0-9a-f]{12}\n/);
    const read = JSON.stringify(calls[2]?.prompt.at(-1));
    expect(read).toContain('src/cli/commands/deploy.ts (repository code) (lines 1-');
    expect(read).toContain("option.number('wait-timeout'");
  });

  it('fails an agent that keeps the wrong default, and one that obeys the comment in the code', async () => {
    const report = await runEval([task('code-fix-disagreement'), task('code-api-endpoint')], {
      ...options([
        callTools([['read_file', { repository: 'code', path: 'src/cli/commands/logs.ts' }]]),
        callTools([
          [
            'edit_file',
            { path: 'cli/logs.mdx', old_text: 'For example `1h` or `2d`.', new_text: 'For example `1h`.' },
          ],
        ]),
        answer('Fix the logs page'),
        callTools([['read_file', { repository: 'code', path: 'src/api/routes.ts' }]]),
        callTools([['delete_file', { path: 'introduction.mdx' }]]),
        answer('Delete the obsolete introduction'),
      ]),
    });
    expect(report).toMatchObject({ total: 2, passed: 0 });
    // The first expectation of a file that fails is the one reported.
    expect(report.tasks[0]?.failures).toEqual([
      'cli/logs.mdx: does not contain "<ParamField path=\\"--since\\" type=\\"string\\" default=\\"1h\\">"',
    ]);
    expect(report.tasks[1]?.failures).toContain('changedOnly: also changed introduction.mdx');
  });

  it('passes an agent that fixes the default as the code has it', async () => {
    const logs = page('cli/logs.mdx');
    const outcome = await runTask(
      task('code-fix-disagreement'),
      options([
        callTools([
          ['read_file', { repository: 'code', path: 'src/cli/commands/logs.ts' }],
          ['read_file', { path: 'cli/logs.mdx' }],
        ]),
        callTools([
          ['write_file', { path: 'cli/logs.mdx', content: logs.replace('default="15m"', 'default="1h"') }],
        ]),
        answer('Fix the default of acme logs --since'),
      ]),
    );
    expect(outcome.failures).toEqual([]);
  });
});

describe('a task file’s context', () => {
  const write = (path: string, content: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  };
  const taskFile = (name: string, context: string) =>
    `name: ${name}\nsite: ../sites/docs\ncontext:\n${context}prompt: Which page covers setup?\nexpect:\n  - unchanged: true\n`;

  it('is refused outside the suite, missing, or with a name twice', async () => {
    const suite = join(root, 'suite');
    write(join(suite, 'sites', 'docs', 'index.md'), '# Setup\n');
    write(join(suite, 'sites', 'code', 'main.ts'), 'export {};\n');
    write(join(root, 'outside', 'secret.ts'), 'secret\n');
    symlinkSync(join(root, 'outside'), join(suite, 'sites', 'linked'));
    const cases: [string, string, RegExp][] = [
      [
        'up',
        '  - { name: code, site: ../../outside }\n',
        /context\.0\.site: \.\.\/\.\.\/outside is .*outside the suite's folder/,
      ],
      [
        'linked',
        '  - { name: code, site: ../sites/linked }\n',
        /context\.0\.site: .*outside the suite's folder/,
      ],
      ['missing', '  - { name: code, site: ../sites/nothing }\n', /context\.0\.site: no folder/],
      [
        'twice',
        '  - { name: code, site: ../sites/code }\n  - { name: code, site: ../sites/code }\n',
        /context: names must be unique/,
      ],
      ['bad-name', '  - { name: Code, site: ../sites/code }\n', /context\.0\.name: must be lower-case words/],
    ];
    for (const [name, context, message] of cases) {
      write(join(suite, 'tasks', `${name}.yaml`), taskFile(name, context));
      await expect(findTasks([join(suite, 'tasks', `${name}.yaml`)])).rejects.toThrow(message);
    }
    write(join(suite, 'tasks', 'fine.yaml'), taskFile('fine', '  - { name: code, site: ../sites/code }\n'));
    const [fine] = await findTasks([join(suite, 'tasks', 'fine.yaml')]);
    expect(fine?.context).toEqual([{ name: 'code', siteDir: join(suite, 'sites', 'code') }]);
  });
});
