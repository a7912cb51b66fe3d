/**
 * `agentjobs automation …`, the built CLI as a client of a real server: create from a template,
 * list, get, update, trigger (created, then grouped), runs, delete, and the API's 422 said on the
 * command line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { runCli } from '../support/processes.js';

describe('the automation commands', () => {
  let t: TestApp;
  let env: Record<string, string>;
  const cli = async (...args: string[]) => runCli(args, env);
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    env = { AGENTJOBS_URL: url, AGENTJOBS_API_KEY: t.key, AGENTJOBS_PROJECT: t.project.id };
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates from a template, lists, changes, triggers, shows the runs and deletes', async () => {
    const created = await json(
      'automation',
      'create',
      '--template',
      'fix-typos',
      '--timezone',
      'Europe/Berlin',
    );
    expect(created).toMatchObject({
      name: 'fix-typos',
      trigger: { type: 'schedule', cron: '0 6 * * 3', timezone: 'Europe/Berlin' },
      enabled: true,
    });
    expect(created.prompt).toContain('{{schedule.time}}');
    const listed = await cli('automation', 'list');
    expect(listed.stdout).toContain(created.id);
    expect(listed.stdout).toContain('schedule 0 6 * * 3 (Europe/Berlin)');

    const manual = await json(
      'automation',
      'update',
      created.id,
      '--trigger',
      'manual',
      '--name',
      'Typos',
      '--prompt',
      'Fix the typos in {{variables.page}}.',
    );
    expect(manual).toMatchObject({ name: 'Typos', trigger: { type: 'manual' }, nextRunAt: null });
    const first = await json('automation', 'trigger', created.id, '--var', 'page=guide/install.md');
    expect(first).toMatchObject({
      outcome: 'created',
      job: { prompt: 'Fix the typos in guide/install.md.' },
    });
    const second = await cli('automation', 'trigger', created.id);
    expect(second.stdout).toContain(`Continued job ${first.job.id}`);
    const runs = await cli('automation', 'runs', created.id);
    expect(runs.stdout).toMatch(/manual\s+manual\s+grouped/);
    expect(runs.stdout).toMatch(/manual\s+manual\s+created/);

    expect((await cli('automation', 'delete', created.id)).code).toBe(0);
    const gone = await cli('automation', 'get', created.id);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('automation_not_found');
  });

  it('says what the API refused, and an unknown template', async () => {
    const bad = await cli(
      'automation',
      'create',
      '--name',
      'x',
      '--trigger',
      'schedule',
      '--cron',
      '0 25 * * *',
      '--prompt',
      'y',
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('invalid_automation');
    expect(bad.stderr).toContain('trigger.cron');
    const unknown = await cli('automation', 'create', '--template', 'write-novel');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('--template takes update-docs-from-code');
  });
});
