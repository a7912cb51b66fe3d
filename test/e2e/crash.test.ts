import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { testDialects } from '../support/db.js';
import { git } from '../support/e2e.js';
import { jobHeldMidRun, settledOn } from '../support/mid-run.js';
import { type ServerProcess, startServerProcess } from '../support/processes.js';
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
    const { repo, model, env, server: first } = scripted;
    let second: ServerProcess | undefined;
    try {
      // The model writes a file, then holds its next answer: the worker is mid-run.
      const job = await jobHeldMidRun(scripted.target(), model, 'crash.md', 'written once\n');
      expect(model.requests.length).toBe(2);

      await first.stop('SIGKILL');

      // The next worker takes the job back and continues the run from its last finished step
      // (test/e2e/resume.test.ts); a model that writes the same file again changes nothing.
      model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'crash.md', content: 'written once\n' } }] },
        { text: 'Wrote crash.md' },
      ]);
      second = await startServerProcess(env);
      const current = await settledOn(second.url, scripted.target(), job.id, 30_000);
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
