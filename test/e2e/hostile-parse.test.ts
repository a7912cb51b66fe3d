/**
 * A model writes files that parsers choke on, against the built server: `/healthz` answers
 * promptly the whole time the job's checks run, and the job ends with the problems on those files
 * (not an `internal_error`). On the event loop, the 80,000 `>` alone froze the service for many
 * minutes, on every check round, and the deep `docs.json` overflowed the stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { scriptedServer } from '../support/scripted-server.js';

const LIMIT = 512 * 1024;
/** A deadline for each liveness answer: far above a busy machine's pauses, far below the freeze. */
const HEALTH_DEADLINE_MS = 3_000;

const fill = (unit: string, tail: string) =>
  unit.repeat(Math.floor((LIMIT - tail.length) / unit.length)) + tail;

describe('hostile files in a job against the built server', () => {
  let scripted: ScriptedServer;

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
      env: { AGENTJOBS_CHECK_REPAIR_ROUNDS: '0' },
    });
  });
  afterAll(async () => {
    await scripted?.close();
  });

  it('keeps answering /healthz while the checks parse them, and reports each file', async () => {
    const depth = 120_000;
    scripted.model.setScript([
      {
        toolCalls: [
          { name: 'write_file', input: { path: 'docs/quote.md', content: fill('>', ' word') } },
          { name: 'write_file', input: { path: 'docs/brackets.md', content: fill('[', 'a') } },
          {
            name: 'write_file',
            input: {
              path: 'docs.json',
              content: `{"$schema": "https://mintlify.com/docs.json", "navigation": ${'['.repeat(depth)}${']'.repeat(depth)}}`,
            },
          },
        ],
      },
      { text: 'Done' },
    ]);
    const { call: api, waitUntil } = scripted.api;
    const { job: created } = await api('POST', '/job', { prompt: 'Write hostile docs' });

    let job: Job = created;
    let polls = 0;
    while (job.status === 'active') {
      // A deadline per request: a blocked event loop misses it (a bound, not a latency measure).
      const health = await fetch(`${scripted.server.url}/healthz`, {
        signal: AbortSignal.timeout(HEALTH_DEADLINE_MS),
      });
      expect(health.status).toBe(200);
      polls++;
      job = (await api('GET', `/job/${created.id}`)).job;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    job = await waitUntil(created.id, (current) => current.status !== 'active');
    expect(polls).toBeGreaterThan(0);
    expect(job).toMatchObject({ status: 'completed', error: null, checks: { status: 'failed' } });
    const problems = job.checks?.results.flatMap((result) => result.problems) ?? [];
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'docs/quote.md',
          message: expect.stringMatching(/nested too deeply/),
        }),
        expect.objectContaining({
          path: 'docs/brackets.md',
          message: expect.stringMatching(/too slow to parse/),
        }),
        expect.objectContaining({ path: 'docs.json', message: expect.stringMatching(/nested too deeply/) }),
      ]),
    );
  }, 180_000);
});
