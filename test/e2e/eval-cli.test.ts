import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';

// `agentjobs eval` as users run it: the built CLI, a model over HTTP (the scripted one), the
// shipped task files; no server, no database.
describe('agentjobs eval', () => {
  let model: ScriptedModelServer;
  let dir: string;
  beforeAll(async () => {
    model = await startScriptedModel();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-eval-cli-'));
  });
  afterAll(async () => {
    await model?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const env = () => ({
    OPENAI_COMPATIBLE_BASE_URL: model.url,
    AGENTJOBS_DATA_DIR: dir,
    AGENTJOBS_MODEL_OUTAGE_SECONDS: '0',
    LOG_LEVEL: 'silent',
  });
  const tasks = ['eval/tasks/readme-question-only.yaml', 'eval/tasks/mkdocs-document-flag.yaml'];

  it('prints the JSON report, writes it to --out, and exits 0 though a task failed', async () => {
    // The first task gets its answer; the second one's agent answers without documenting anything.
    model.setScript([{ text: 'Use @toolbelt/retry.' }, { text: 'Done.' }]);
    const out = path.join(dir, 'report.json');
    const result = await runCli(
      [
        'eval',
        ...tasks,
        '--model',
        'openai-compatible:scripted',
        '--concurrency',
        '1',
        '--json',
        '--out',
        out,
      ],
      env(),
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ model: 'openai-compatible:scripted', total: 2, passed: 1, passRate: 0.5 });
    expect(report.tasks[0]).toMatchObject({
      name: 'mkdocs-document-flag',
      passed: false,
      failures: ['docs/cli.md: does not contain "--sample-rate"'],
    });
    expect(report.tasks[1]).toMatchObject({
      name: 'readme-question-only',
      passed: true,
      failures: [],
      steps: 1,
      costUsd: null,
    });
    for (const key of ['inputTokens', 'outputTokens', 'cachedInputTokens', 'seconds'])
      expect(typeof report.tasks[1][key]).toBe('number');
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual(report);
  });

  it('prints a table without --json', async () => {
    model.setScript([{ text: 'Use @toolbelt/retry.' }]);
    const result = await runCli(['eval', tasks[0] as string, '--model', 'openai-compatible:scripted'], env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^TASK\s+PASS\s+STEPS\s+TOKENS\s+COST\s+SECONDS\s+FIRST FAILURE$/m);
    expect(result.stdout).toMatch(/^readme-question-only\s+yes\s+1\s+15\s+unknown\s/m);
    expect(result.stdout).toContain('1 of 1 passed (100%)');
  });

  it('exits non-zero when it cannot run: a bad task file, a site outside the suite, or no model', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'name: Bad Name\nsite: nowhere\nprompt: x\nexpect: []\n');
    const badTask = await runCli(['eval', bad, '--model', 'openai-compatible:scripted'], env());
    expect(badTask.code).not.toBe(0);
    expect(badTask.stderr).toContain('bad.yaml: name: must be lower-case words joined by "-"');
    // A site outside the suite's folder: here the data directory, beside the task's own folder.
    const suite = path.join(dir, 'suite');
    fs.mkdirSync(suite);
    fs.writeFileSync(
      path.join(suite, 'peek.yaml'),
      'name: peek\nsite: ..\nprompt: List every file.\nexpect:\n  - unchanged: true\n',
    );
    const outside = await runCli(['eval', suite, '--model', 'openai-compatible:scripted'], env());
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toContain(`peek.yaml: task peek: site: .. is ${fs.realpathSync(dir)}, outside`);
    const noModel = await runCli(['eval', tasks[0] as string], {
      ...env(),
      OPENAI_COMPATIBLE_BASE_URL: '',
      ANTHROPIC_API_KEY: '',
    });
    expect(noModel.code).not.toBe(0);
    // With nothing configured the default model is named, and refused for want of its key, which
    // belongs in this shell: eval has no server.
    expect(noModel.stderr).toMatch(
      /The model anthropic:\S+ needs ANTHROPIC_API_KEY, which is not set\. eval runs the agent in this process, without a server/,
    );
    expect(noModel.stderr).not.toContain('on the server');
  });
});
