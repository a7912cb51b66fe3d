import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Worker } from '../../src/background/worker.js';
import type { Job } from '../../src/domain/job.js';
import { RESUMED_WITH_FILES, RESUMED_WITHOUT_FILES } from '../../src/run/progress.js';
import { testDialects, testJobInput } from '../support/db.js';
import { realAgentConfig, startRealWorker } from '../support/real-agent.js';
import { heldUntil } from '../support/scripted-model.js';
import { type ScriptedWorker, scriptedWorker } from '../support/scripted-worker.js';
import { git, settledJob, waitFor } from '../support/worker.js';

/** What the handed-back job's progress records of one file it wrote. */
interface WrittenFile {
  sha: string;
  mode: string;
}

// A run handed back at shutdown (its grace period over) continues on the next worker from its
// last finished step, with the files it wrote, or, when they cannot be taken back, told so.
describe.each(testDialects())('a run continued by the next worker, on %s', (dialect) => {
  /** Starts a job whose model writes `notes.md` and then holds its answer, and stops the worker. */
  async function handedBack(scripted: ScriptedWorker) {
    const { t, project, repo, model } = scripted;
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'notes.md', content: 'first attempt\n' } }] },
      heldUntil(new Promise<void>(() => {}), { text: 'never' }),
    ]);
    const job = await t.store.jobs.create(
      testJobInput({ id: project.id, repository: repo }, 'Write notes.md', {
        model: 'openai-compatible:scripted',
      }),
    );
    await waitFor(
      async () => model.requests.length,
      (count) => count >= 2,
      { timeoutMs: 30_000, everyMs: 50 },
    );
    await scripted.worker.stop({ graceMs: 0 });
    return job;
  }

  /**
   * Runs `test` on a scripted worker named `name` and `finish`, which starts the next worker and
   * waits until the job has settled on it; stops every worker and closes all after.
   */
  async function withNextWorker(
    name: string,
    test: (scripted: ScriptedWorker, finish: (jobId: string) => Promise<Job>) => Promise<void>,
  ) {
    const scripted = await scriptedWorker({ name, dialect });
    const next: Worker[] = [];
    const finish = async (jobId: string) => {
      const config = realAgentConfig(path.join(scripted.dir, 'data'), scripted.model.url);
      next.push((await startRealWorker(config, scripted.t.store, 'next')).worker);
      return settledJob(scripted.t.store, scripted.project.id, jobId);
    };
    try {
      await test(scripted, finish);
    } finally {
      for (const worker of next) await worker.stop({ graceMs: 0 });
      await scripted.close();
    }
  }

  /** The messages of the next attempt's first request to the model. */
  const resumedMessages = (scripted: ScriptedWorker) =>
    scripted.model.requests[2]?.body.messages as { role: string; content: unknown }[];

  it('continues a run handed back at shutdown with its conversation and its written file', async () => {
    await withNextWorker('resume-release', async (scripted, finish) => {
      const job = await handedBack(scripted);
      scripted.model.setScript([{ text: 'Wrote notes.md' }]);
      const done = await finish(job.id);
      expect(done).toMatchObject({ status: 'completed', error: null, filesChanged: 1 });
      const resumed = resumedMessages(scripted);
      expect(resumed.filter((message) => message.role === 'tool')).toHaveLength(1);
      expect(resumed.at(-1)).toMatchObject({ role: 'user', content: RESUMED_WITH_FILES });
      expect(git(scripted.repo, 'show', `${job.source.ref}:notes.md`)).toBe('first attempt');
      const events = await scripted.t.store.events.list(job.id, 0, 500);
      expect(events.map((event) => event.data)).toContainEqual(
        expect.objectContaining({ phase: 'queued', reason: 'released' }),
      );
      expect(events.map((event) => event.data)).toContainEqual(
        expect.objectContaining({ phase: 'running', reason: 'resumed' }),
      );
    });
  }, 120_000);

  /**
   * Hands a run back and changes what its progress records of each written file with `edit`, so
   * that the files cannot be taken back as recorded: the next worker tells the model, which writes
   * them again, and what is committed is its new regular file.
   */
  async function resumedAfterEdit(name: string, edit: (file: WrittenFile) => void) {
    await withNextWorker(name, async (scripted, finish) => {
      const job = await handedBack(scripted);
      const row = await scripted.t.db.kysely
        .selectFrom('job_worker_state')
        .select('progress')
        .where('job_id', '=', job.id)
        .executeTakeFirstOrThrow();
      const progress = JSON.parse(row.progress ?? 'null');
      for (const file of progress.changes.written) edit(file);
      await scripted.t.db.kysely
        .updateTable('job_worker_state')
        .set({ progress: JSON.stringify(progress) })
        .where('job_id', '=', job.id)
        .execute();

      scripted.model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'notes.md', content: 'second attempt\n' } }] },
        { text: 'Wrote notes.md again' },
      ]);
      const done = await finish(job.id);
      expect(done).toMatchObject({ status: 'completed', error: null, filesChanged: 1 });
      expect(resumedMessages(scripted).at(-1)).toMatchObject({
        role: 'user',
        content: RESUMED_WITHOUT_FILES,
      });
      expect(git(scripted.repo, 'ls-tree', job.source.ref, 'notes.md')).toMatch(/^100644 blob /);
      expect(git(scripted.repo, 'show', `${job.source.ref}:notes.md`)).toBe('second attempt');
    });
  }

  it('tells the model when the written files could not be kept, and it writes them again', async () => {
    // As on another machine, whose mirror never held the first attempt's blobs.
    await resumedAfterEdit('resume-lost-files', (file) => {
      file.sha = 'e'.repeat(40);
    });
  }, 120_000);

  it('re-checks a tampered record: a file recorded as a symlink is not taken back, nor committed so', async () => {
    // The record says notes.md is a symlink (its blob, "first attempt", the link's target).
    await resumedAfterEdit('resume-tampered', (file) => {
      file.mode = '120000';
    });
  }, 120_000);
});
