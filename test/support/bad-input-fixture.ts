/** What the bad-input tests share: their request builders, and the app and checks every row runs with. */
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSchema } from '../../src/api/schemas.js';
import { startTestApp, type TestApp } from './app.js';
import { testDialects } from './db.js';

export interface Row {
  name: string;
  status: number;
  code: string;
  /** Builds the request; `t` is the running app with its project, key and a finished job. */
  request: (t: TestApp, ctx: Context) => InjectOptions | Promise<InjectOptions>;
  headers?: Record<string, string | RegExp>;
}

export interface Context {
  jobId: string;
  archivedJobId: string;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const jobs = (t: TestApp) => `/v2/agent/${t.project.id}/job`;
export const create = (
  t: TestApp,
  payload: unknown,
  headers: Record<string, string> = {},
): InjectOptions => ({
  method: 'POST',
  url: jobs(t),
  headers: { ...bearer(t.key), 'content-type': 'application/json', ...headers },
  payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
});
export const get = (t: TestApp, url: string, key = t.key): InjectOptions => ({
  method: 'GET',
  url,
  headers: bearer(key),
});

/**
 * The `bad input on <dialect>` tests of one file: each row is sent to an app of its own for the file,
 * and must get its status and the error shape, without a stack trace or a row written, and leave the
 * service fine for a good request afterwards. The rows of all the bad-input test files together are
 * every row of the errors table (docs/api.md#errors), and the extra cases the service-core issue names.
 * `more` adds tests of the same app, which `app()` returns once it is running.
 */
export function describeBadInput(rows: Row[], more?: (app: () => TestApp) => void): void {
  describe.each(testDialects())('bad input on %s', (dialect) => {
    let t: TestApp;
    const context: Context = { jobId: '', archivedJobId: '' };
    const count = async () => {
      const jobsCount = await t.store.db.kysely
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      const events = await t.store.db.kysely
        .selectFrom('job_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return { jobs: Number(jobsCount.n), events: Number(events.n) };
    };

    beforeAll(async () => {
      // Every row creates a job afterwards: more than the default hourly budget allows.
      t = await startTestApp(dialect, {
        AGENTJOBS_RATE_LIMIT_PER_HOUR: '100000',
        AGENTJOBS_MAX_ACTIVE_JOBS: '0',
      });
      context.jobId = (await t.app.inject(create(t, { prompt: 'a job' }))).json().id;
      context.archivedJobId = (await t.app.inject(create(t, { prompt: 'an archived job' }))).json().id;
      await t.app.inject({
        method: 'POST',
        url: `${jobs(t)}/${context.archivedJobId}/archive`,
        headers: bearer(t.key),
      });
    });
    afterAll(() => t.close());

    it.each(rows)('$name → $status $code', async (row) => {
      const request = await row.request(t, context);
      const before = await count();
      const response = await t.app.inject(request);

      expect(response.statusCode).toBe(row.status);
      const body = errorSchema.strict().parse(response.json());
      expect(body.code).toBe(row.code);
      expect(body.error.length).toBeGreaterThan(5);
      expect(body.requestId).toBe(response.headers['x-request-id']);
      expect(response.body).not.toMatch(/at .+\.(ts|js):\d+/); // no stack trace
      for (const [name, value] of Object.entries(row.headers ?? {})) {
        expect(String(response.headers[name])).toMatch(value);
      }
      expect(await count()).toEqual(before);

      // The service is still fine afterwards.
      const next = await t.app.inject(create(t, { prompt: 'a good request after a bad one' }));
      expect(next.statusCode).toBe(201);
    });

    more?.(() => t);
  });
}
