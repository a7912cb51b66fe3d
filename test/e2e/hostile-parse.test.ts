/**
 * A model writes files that parsers choke on, against the built server: `/healthz` answers
 * promptly the whole time the job's checks run, and the job ends with the problems on those files
 * (not an `internal_error`). On the event loop, the 80,000 `>` alone froze the service for many
 * minutes, on every check round, and the deep `docs.json` overflowed the stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { type ScriptedServer, scriptedServer } from '../support/scripted-server.js';

const LIMIT = 512 * 1024;
/** A deadline for each liveness answer: far above a busy machine's pauses, far below the freeze. */
const HEALTH_DEADLINE_MS = 3_000;

const fill = (unit: string, tail: string) =>
  unit.repeat(Math.floor((LIMIT - tail.length) / unit.length)) + tail;

/** Runs of 1, 2, 3, … backticks between letters: each run looks for its closing run of equal length. */
function backtickLadder(): string {
  let text = '';
  for (let run = 1; text.length + run + 1 <= LIMIT; run++) text += `${'`'.repeat(run)}a`;
  return text;
}

describe('hostile files in a job against the built server', () => {
  let scripted: ScriptedServer;
  let stopped = false;

  beforeAll(async () => {
    scripted = await scriptedServer({
      name: 'hostile-parse',
      files: {
        'docs.json': JSON.stringify({
          $schema: 'https://mintlify.com/docs.json',
          navigation: { pages: ['index'] },
        }),
        'index.mdx': '---\ntitle: Home\n---\n\nWelcome.\n',
      },
      // A short budget per file, so that the slow page is past it on any machine.
      env: { AGENTJOBS_CHECK_REPAIR_ROUNDS: '0', AGENTJOBS_CHECK_PARSE_SECONDS: '1' },
    });
  });
  afterAll(async () => {
    if (!stopped) await scripted?.close();
  });

  /** Runs a job that writes `files`, polling `/healthz` with a deadline until it ends. */
  async function runJob(files: Record<string, string>): Promise<Job> {
    scripted.model.setScript([
      {
        toolCalls: Object.entries(files).map(([path, content]) => ({
          name: 'write_file',
          input: { path, content },
        })),
      },
      { text: 'Done' },
    ]);
    const { call: api, waitUntil } = scripted.api;
    const { job: created } = await api('POST', '/job', { prompt: 'Write hostile docs' });
    let job: Job = created;
    while (job.status === 'active') {
      // A deadline per request: a blocked event loop misses it (a bound, not a latency measure).
      const health = await fetch(`${scripted.server.url}/healthz`, {
        signal: AbortSignal.timeout(HEALTH_DEADLINE_MS),
      });
      expect(health.status).toBe(200);
      job = (await api('GET', `/job/${created.id}`)).job;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return waitUntil(created.id, (current) => current.status !== 'active');
  }

  const problemsOf = (job: Job) => job.checks?.results.flatMap((result) => result.problems) ?? [];

  it('keeps answering /healthz while the checks parse pages that choke the parser, and reports each', async () => {
    const job = await runJob({ 'docs/quote.md': fill('>', ' word'), 'docs/ticks.md': backtickLadder() });
    expect(job).toMatchObject({ status: 'completed', error: null, checks: { status: 'failed' } });
    expect(problemsOf(job)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'docs/quote.md',
          message: expect.stringMatching(/nested too deeply/),
        }),
        expect.objectContaining({
          path: 'docs/ticks.md',
          message: expect.stringMatching(/too slow to parse/),
        }),
      ]),
    );
  }, 180_000);

  it('reports a docs.json 120,000 levels deep as a problem, not an internal error', async () => {
    const depth = 120_000;
    const deep = `{"$schema": "https://mintlify.com/docs.json", "navigation": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const job = await runJob({ 'docs.json': deep });
    expect(job).toMatchObject({ status: 'completed', error: null, checks: { status: 'failed' } });
    expect(problemsOf(job)).toContainEqual(
      expect.objectContaining({ path: 'docs.json', message: expect.stringMatching(/nested too deeply/) }),
    );
  }, 180_000);

  it('stops cleanly on SIGTERM, its parse pool closed', async () => {
    stopped = true;
    expect(await scripted.close()).toBe(0);
  });
});
