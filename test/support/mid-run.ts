import type { Job } from '../../src/domain/job.js';
import { type JobTarget, jobApi } from './e2e.js';
import { heldUntil, type ScriptedModelServer } from './scripted-model.js';
import { waitFor } from './worker.js';

/**
 * Starts a job over the API whose model writes `file` with `content` and then never answers
 * again, and waits until the worker has asked for that answer: a run mid-way with one finished
 * step, for a test to kill, stop or hand back.
 */
export async function jobHeldMidRun(
  target: JobTarget,
  model: ScriptedModelServer,
  file: string,
  content: string,
): Promise<Job> {
  model.setScript([
    { toolCalls: [{ name: 'write_file', input: { path: file, content } }] },
    heldUntil(new Promise<void>(() => {}), { text: 'never' }),
  ]);
  const created = await jobApi(() => target).call('POST', '/job', { prompt: `Write ${file}` });
  if (created.status !== 201) throw new Error(`creating the job answered ${created.status}`);
  await waitFor(
    async () => model.requests.length,
    (count) => count >= 2,
    { timeoutMs: 20_000, everyMs: 50 },
  );
  return created.job;
}

/** Waits until the job is no longer active on the server at `url` (another than the target's). */
export function settledOn(url: string, target: JobTarget, jobId: string, timeoutMs = 45_000): Promise<Job> {
  return jobApi(() => ({ ...target, url })).waitUntil(jobId, (job) => job.status !== 'active', timeoutMs);
}
