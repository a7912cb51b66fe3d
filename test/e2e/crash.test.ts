import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { testDialects } from '../support/db.js';
import { git } from '../support/e2e.js';
import { type ServerProcess, startServerProcess } from '../support/processes.js';
import { heldUntil } from '../support/scripted-model.js';
import { scriptedServer } from '../support/scripted-server.js';

// A worker killed mid-run must not lose the job, open a second pull request or commit twice.
describe.each(testDialects())('a worker killed with SIGKILL mid-run, on %s', (dialect) => {
  it('leaves the job to the next worker, which completes it once', async () => {
    const scripted = await scriptedServer({
      name: 'crash',
      dialect,
      files: {},
      env: { AGENTJOBS_LEASE_SECONDS: '5', AGENTJOBS_POLL_SECONDS: '1' },
    });
    const { repo, model, env, projectId, key, server: first } = scripted;
    let second: ServerProcess | undefined;
    try {
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

      // The model writes a file, then holds its next answer: the worker is mid-run.
      model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'crash.md', content: 'written once\n' } }] },
        heldUntil(new Promise<void>(() => {}), { text: 'never' }),
      ]);
      const created = await fetch(`${first.url}/v2/agent/${projectId}/job`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: 'Write crash.md' }),
      });
      const job = (await created.json()) as { id: string; source: { ref: string } };
      const deadline = Date.now() + 20_000;
      while (model.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(model.requests.length).toBe(2);

      await first.stop('SIGKILL');

      // The next worker takes the job back and continues the run from its last finished step
      // (test/e2e/resume.test.ts); a model that writes the same file again changes nothing.
      model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'crash.md', content: 'written once\n' } }] },
        { text: 'Wrote crash.md' },
      ]);
      second = await startServerProcess(env);
      let current = { status: 'active', prLink: null as string | null, error: null as unknown };
      const until = Date.now() + 30_000;
      while (current.status === 'active' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 200));
        const response = await fetch(`${second.url}/v2/agent/${projectId}/job/${job.id}`, { headers });
        current = (await response.json()) as typeof current;
      }
      expect(current).toMatchObject({ status: 'completed', error: null });
      expect(current.prLink).toMatch(/\/pulls\/1$/);

      // One pull request, one commit, exactly the change.
      const db = openDb({ url: env.DATABASE_URL ?? '' });
      const pulls = await db.kysely.selectFrom('pull_requests').selectAll().execute();
      await db.close();
      expect(pulls).toHaveLength(1);
      expect(git(repo, 'rev-list', '--count', `main..${job.source.ref}`)).toBe('1');
      expect(git(repo, 'diff', '--name-only', `main...${job.source.ref}`)).toBe('crash.md');
    } finally {
      await first.stop('SIGKILL');
      await second?.stop();
      await scripted.close();
    }
  });
});
