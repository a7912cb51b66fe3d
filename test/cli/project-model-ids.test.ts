import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAppWithPassword } from '../support/app.js';
import { runCli } from '../support/processes.js';
import { DashboardClient } from '../support/web-session.js';
import { useRepository } from '../support/worker.js';

const PASSWORD = 'model id rule password';
const SAID =
  '"foo:bar" is not a model id: use provider:model with provider one of anthropic, openai, openai-compatible (e.g. anthropic:claude-sonnet-4-5), or demo for the built-in demo model.';
const decodeEntities = (text: string) => text.replaceAll('&quot;', '"').replaceAll('&#39;', "'");

describe('a project refuses foo:bar as a model, in the CLI and the dashboard alike', () => {
  const t = useAppWithPassword(PASSWORD);
  const docs = useRepository({ name: 'model-id-rule' });

  it('the dashboard: as the default model and in the allowed list, next to the field', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    await browser.get('/ui/projects/new');
    const form = { name: 'Docs', host: 'local', repository: docs.repo, publish: 'pull_request' };
    const before = (await t.store.projects.list()).length;
    for (const field of ['defaultModel', 'allowedModels']) {
      const refused = await browser.post('/ui/projects', { ...form, [field]: 'foo:bar' });
      expect(refused.status).toBe(400);
      expect(decodeEntities(refused.body)).toContain(SAID);
    }
    expect(await t.store.projects.list()).toHaveLength(before);
    // A model the agent can run passes.
    const made = await browser.post('/ui/projects', { ...form, defaultModel: 'openai:gpt-4o' });
    expect(made.status).toBe(303);
  });

  it('the CLI: --model and --models, with the dashboard’s sentence after the flag', async () => {
    const env = { AGENTJOBS_DATA_DIR: path.join(docs.dir, 'data'), DATABASE_URL: '' };
    for (const flag of ['--model', '--models']) {
      const refused = await runCli(
        ['project', 'create', '--name', 'Docs', '--repo', docs.repo, flag, 'foo:bar'],
        env,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`${flag}: ${SAID}`);
    }
    const listed = await runCli(['project', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).projects).toEqual([]);
    const made = await runCli(
      ['project', 'create', '--name', 'Docs', '--repo', docs.repo, '--model', 'demo', '--json'],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ defaultModel: 'demo' });
  });
});
