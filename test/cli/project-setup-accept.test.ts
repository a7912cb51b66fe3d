import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openStore } from '../../src/store/open.js';
import { useAppWithPassword } from '../support/app.js';
import { runCli } from '../support/processes.js';
import { DashboardClient } from '../support/web-session.js';
import { useRepository } from '../support/worker.js';

const PASSWORD = 'setup accept password';

describe('accepting setup inputs the service changed', () => {
  const t = useAppWithPassword(PASSWORD);
  const docs = useRepository({ name: 'setup-accept' });

  it('the dashboard shows the hold and its button clears it', async () => {
    const project = await t.store.projects.create({ name: 'Docs', repository: docs.repo, publish: 'push' });
    await t.store.projects.holdSetup(project.id, { files: ['package.json', 'setup.sh'], jobId: 'job-1' });
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const page = await browser.get(`/ui/projects/${project.id}/settings`);
    expect(page.body).toContain('Setup held for review');
    expect(page.body).toContain('<code>setup.sh</code>');
    const accepted = await browser.post(`/ui/projects/${project.id}/setup/accept`);
    expect(accepted.status).toBe(303);
    expect((await t.store.projects.get(project.id))?.setupReview).toBeNull();
    expect((await browser.get(`/ui/projects/${project.id}/settings`)).body).not.toContain(
      'Setup held for review',
    );
  });

  it('the CLI shows the hold in project get and clears it with project setup accept', async () => {
    const env = { AGENTJOBS_DATA_DIR: path.join(docs.dir, 'data'), DATABASE_URL: '' };
    const store = await openStore(loadConfig(env));
    const project = await store.projects.create({ name: 'Docs', repository: docs.repo, publish: 'push' });
    await store.projects.holdSetup(project.id, { files: ['setup.sh'], jobId: 'job-2' });
    await store.close();
    const shown = await runCli(['project', 'get', project.id], env);
    expect(shown.stdout).toMatch(/setup held.*changed setup\.sh.*agentjobs project setup accept/s);
    const accepted = await runCli(['project', 'setup', 'accept', project.id], env);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain('Accepted: the service');
    const again = await runCli(['project', 'setup', 'accept', project.id, '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual({ projectId: project.id, accepted: null });
  });
});
