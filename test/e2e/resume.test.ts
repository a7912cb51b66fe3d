import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { git } from '../support/e2e.js';
import { jobHeldMidRun, settledOn } from '../support/mid-run.js';
import { type ServerProcess, startServerProcess } from '../support/processes.js';
import { scriptedServer } from '../support/scripted-server.js';
import { waitFor } from '../support/worker.js';

/** Leases long enough that only the reclaim at start can explain a job taken back during the test. */
const LONG_LEASE = { AGENTJOBS_LEASE_SECONDS: '600', AGENTJOBS_POLL_SECONDS: '1' };

/** What a server logged when it took back the jobs of gone workers, or undefined. */
function reclaimLog(server: ServerProcess): Record<string, unknown> | undefined {
  const line = server.output.find((text) =>
    text.includes('reclaimed the jobs of workers of this data directory'),
  );
  return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
}

interface EventView {
  type: string;
  data: { phase?: string; reason?: string; attempt?: number };
}

// A server killed mid-run (kill -9, a second Ctrl-C) and started again on the same data directory:
// it takes the job back at once and continues the run from its last finished step.
describe.each(testDialects())('a server killed mid-run and started again, on %s', (dialect) => {
  it('takes the job back at once, continues the conversation and keeps the written file', async () => {
    const scripted = await scriptedServer({ name: 'resume', dialect, files: {}, env: LONG_LEASE });
    const { repo, model, env, projectId, key, server: first } = scripted;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const started: ServerProcess[] = [];
    const start = async (more: Record<string, string>, role: 'serve' | 'worker' = 'serve') => {
      const server = await startServerProcess({ ...env, ...more }, role);
      started.push(server);
      return server;
    };
    const events = async (url: string, jobId: string) => {
      const response = await fetch(`${url}/v2/agent/${projectId}/job/${jobId}/events?limit=500`, { headers });
      const page = (await response.json()) as { events?: EventView[] } | EventView[];
      return Array.isArray(page) ? page : (page.events ?? []);
    };
    try {
      // The model writes a file, then holds its next answer: the worker is mid-run.
      const job = await jobHeldMidRun(scripted.target(), model, 'resume.md', 'written before the kill\n');
      expect(model.requests.length).toBe(2);

      // A live worker of the same data directory is never robbed: another process started on it
      // leaves the job with its holder.
      const neighbour = await start({}, 'worker');
      await neighbour.stop();
      expect((await events(first.url, job.id)).some((event) => event.data.reason === 'worker_gone')).toBe(
        false,
      );
      expect(model.requests.length).toBe(2);

      await first.stop('SIGKILL');

      // The new attempt only has to finish: it writes nothing itself.
      model.setScript([{ text: 'Wrote resume.md' }]);
      const second = await start({});
      const current = await settledOn(second.url, scripted.target(), job.id);
      expect(current).toMatchObject({ status: 'completed', error: null });

      // Taken back by the reclaim at start (the lease had ten minutes to run), counted as attempt 1 lost.
      const history = await events(second.url, job.id);
      const requeue = history.find(
        (event) => event.type === 'phase' && event.data.phase === 'queued' && event.data.reason,
      );
      expect(requeue?.data).toMatchObject({ reason: 'worker_gone', attempt: 1 });
      expect(history.some((event) => event.data.reason === 'resumed')).toBe(true);

      // Killed, not stopped by a person: the lost attempt counts.
      expect(reclaimLog(second)).toMatchObject({ stoppedAtOnce: false, requeued: [job.id] });

      // The new attempt's first request holds the earlier step: the tool call and its result.
      expect(model.requests).toHaveLength(3);
      const messages = model.requests[2]?.body.messages as { role: string; content: unknown }[];
      expect(messages.some((message) => message.role === 'tool')).toBe(true);
      expect(JSON.stringify(messages)).toContain('written before the kill');
      expect(JSON.stringify(messages.at(-1))).toContain('the service restarted while you were working');

      // The pull request holds the file the first attempt wrote, in one commit.
      expect(current.prLink).toMatch(/\/pulls\/1$/);
      expect(git(repo, 'rev-list', '--count', `main..${job.source.ref}`)).toBe('1');
      expect(git(repo, 'show', `${job.source.ref}:resume.md`)).toBe('written before the kill');
      // The worker files of the data directory: the dead one's was removed once its jobs were reclaimed.
      await second.stop();
      expect(fs.readdirSync(path.join(env.AGENTJOBS_DATA_DIR ?? '', 'workers'))).toEqual([]);
    } finally {
      await first.stop('SIGKILL');
      for (const server of started) await server.stop('SIGKILL');
      await scripted.close();
    }
  }, 150_000);
});

// Scale-out on PostgreSQL: a worker judges only the workers of its own data directory.
describe.runIf(testDialects().includes('postgres'))('workers of other data directories', () => {
  it('never take back a job whose worker runs elsewhere, alive or dead', async () => {
    const scripted = await scriptedServer({
      name: 'resume-other',
      dialect: 'postgres',
      files: {},
      env: LONG_LEASE,
    });
    const { model, env, projectId, key, server: first, dir } = scripted;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const started: ServerProcess[] = [];
    const elsewhere = async (name: string) => {
      const server = await startServerProcess({ ...env, AGENTJOBS_DATA_DIR: path.join(dir, name) }, 'worker');
      started.push(server);
      return server;
    };
    try {
      const job = await jobHeldMidRun(scripted.target(), model, 'a.md', 'a\n');
      expect(model.requests.length).toBe(2);
      const held = async () => {
        const response = await fetch(`${first.url}/v2/agent/${projectId}/job/${job.id}`, { headers });
        return (await response.json()) as { status: string; phase: string };
      };

      // Alive, and another data directory's worker starts: the job stays where it is.
      await (await elsewhere('other-1')).stop();
      expect(await held()).toMatchObject({ status: 'active', phase: 'running' });

      // Dead, but judged only from its own data directory: another one's worker leaves it to its lease.
      const { openDb } = await import('../../src/store/db.js');
      const db = openDb({ url: env.DATABASE_URL ?? '' });
      try {
        const before = await db.kysely
          .selectFrom('jobs')
          .select(['lease_owner', 'attempt'])
          .where('id', '=', job.id)
          .executeTakeFirstOrThrow();
        await first.stop('SIGKILL');
        await (await elsewhere('other-2')).stop();
        const after = await db.kysely
          .selectFrom('jobs')
          .select(['lease_owner', 'attempt', 'status', 'phase'])
          .where('id', '=', job.id)
          .executeTakeFirstOrThrow();
        expect(before.lease_owner).not.toBeNull();
        expect(after).toMatchObject({ ...before, status: 'active', phase: 'running' });
      } finally {
        await db.close();
      }
      expect(model.requests.length).toBe(2);
    } finally {
      await first.stop('SIGKILL');
      for (const server of started) await server.stop('SIGKILL');
      await scripted.close();
    }
  }, 150_000);
});

// Two Ctrl-Cs: the person stopped the server, the job did nothing wrong.
describe('a server stopped at once with a second Ctrl-C', () => {
  it('has its jobs taken back at the next start without counting a lost attempt', async () => {
    const env = { ...LONG_LEASE, AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '600' };
    const scripted = await scriptedServer({ name: 'resume-sigint', files: {}, env });
    const { model, server: first } = scripted;
    let second: ServerProcess | undefined;
    try {
      const job = await jobHeldMidRun(scripted.target(), model, 'a.md', 'a\n');
      expect(model.requests.length).toBe(2);

      first.child.kill('SIGINT');
      await waitFor(
        async () => first.output.some((line) => line.includes('Press Ctrl-C again')),
        (asked) => asked,
        { timeoutMs: 20_000, everyMs: 50 },
      );
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(1);

      model.setScript([{ text: 'Wrote a.md' }]);
      second = await startServerProcess(scripted.env);
      expect(reclaimLog(second)).toMatchObject({ stoppedAtOnce: true, requeued: [job.id] });
      expect((await settledOn(second.url, scripted.target(), job.id)).status).toBe('completed');
    } finally {
      await first.stop('SIGKILL');
      await second?.stop('SIGKILL');
      await scripted.close();
    }
  }, 150_000);
});
