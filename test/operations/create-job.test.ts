/**
 * The job operations on their own, against a real store on both databases: what the API, the
 * dashboard and MCP share when they start a job or follow up (src/operations/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../src/domain/errors.js';
import type { Project } from '../../src/domain/project.js';
import { createJob, type JobOperationDeps } from '../../src/operations/create-job.js';
import { followUp } from '../../src/operations/follow-up.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';

const limits = { requestsPerHour: 3, activeJobsPerProject: 10, maxPromptChars: 100 };

/** What the operation threw, for its code and data. */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!error) throw new Error('expected the operation to refuse');
  return error as AppError;
}

describe.each(testDialects())('createJob and followUp on %s', (dialect) => {
  let t: TestStore;
  let deps: JobOperationDeps;
  const projectNamed = (name: string, extra: Partial<Project> = {}) =>
    t.store.projects.create({ name, repository: `/srv/${name}.git`, ...extra });
  beforeAll(async () => {
    t = await openTestStore(dialect);
    deps = { store: t.store, config: { defaultModel: 'anthropic:claude-sonnet-4-5', limits } };
  });
  afterAll(async () => t.close());

  it('makes a job with the project’s defaults, and spends one of the hour’s budget', async () => {
    const project = await projectNamed('defaults', { defaultModel: 'demo' });
    const { job, replayed, budget } = await createJob(deps, { projectId: project.id, prompt: 'Fix typos' });
    expect(job).toMatchObject({ projectId: project.id, prompt: 'Fix typos', model: 'demo', baseRef: 'main' });
    expect(replayed).toBe(false);
    expect(budget).toMatchObject({ limit: 3, remaining: 2 });
    expect(await t.store.jobs.get(project.id, job.id)).toEqual(job);
  });

  it('returns the same job for the same Idempotency-Key, spends nothing on a replay, refuses another body', async () => {
    const project = await projectNamed('idempotent');
    const request = { projectId: project.id, prompt: 'Once', idempotencyKey: 'key-1' };
    const first = await createJob(deps, request);
    const again = await createJob(deps, request);
    expect(again).toMatchObject({ replayed: true, budget: null });
    expect(again.job.id).toBe(first.job.id);
    // A replay spent nothing: two creates are still in the hour's budget of three.
    expect((await createJob(deps, { projectId: project.id, prompt: 'Second' })).budget?.remaining).toBe(1);
    const mismatch = await refusal(createJob(deps, { ...request, prompt: 'Something else' }));
    expect(mismatch.code).toBe('idempotency_mismatch');
    const malformed = await refusal(createJob(deps, { ...request, idempotencyKey: 'has space' }));
    expect(malformed.code).toBe('invalid_request');
    expect((await t.store.jobs.list(project.id, { limit: 10 })).jobs).toHaveLength(2);
  });

  it('refuses past the hourly budget with where the limit stands, makes nothing, and counts follow-ups too', async () => {
    const project = await projectNamed('budget');
    const { job } = await createJob(deps, { projectId: project.id, prompt: 'One' });
    await followUp(deps, { projectId: project.id, jobId: job.id, prompt: 'Two' });
    await createJob(deps, { projectId: project.id, prompt: 'Three' });
    const over = await refusal(createJob(deps, { projectId: project.id, prompt: 'Four' }));
    expect(over.code).toBe('rate_limited');
    expect(over.limit).toMatchObject({ limit: 3, remaining: 0 });
    expect(over.retryAfterSeconds).toBeGreaterThan(0);
    expect(
      (await refusal(followUp(deps, { projectId: project.id, jobId: job.id, prompt: 'Five' }))).code,
    ).toBe('rate_limited');
    expect((await t.store.jobs.list(project.id, { limit: 10 })).jobs).toHaveLength(2);
    // Even then, a key already used gets its job back: a replay spends no budget.
    const other = await projectNamed('budget-replay');
    const request = { projectId: other.id, prompt: 'Kept', idempotencyKey: 'k' };
    const made = await createJob(deps, request);
    for (let i = 0; i < 2; i++) await createJob(deps, { projectId: other.id, prompt: `Fill ${i}` });
    expect((await createJob(deps, request)).job.id).toBe(made.job.id);
  });

  it('refuses a model the project does not allow, or one no provider serves, before anything is spent', async () => {
    const project = await projectNamed('models', { allowedModels: ['openai:gpt-4o', 'demo'] });
    expect((await createJob(deps, { projectId: project.id, prompt: 'p', model: 'demo' })).job.model).toBe(
      'demo',
    );
    for (const model of ['anthropic:claude-sonnet-4-5', 'foo:bar']) {
      const refused = await refusal(createJob(deps, { projectId: project.id, prompt: 'p', model }));
      expect(refused.code).toBe('model_not_allowed');
      expect(refused.message).toContain('Allowed: openai:gpt-4o, demo.');
    }
    const open = await projectNamed('open-models');
    const foo = await refusal(createJob(deps, { projectId: open.id, prompt: 'p', model: 'foo:bar' }));
    expect(foo.code).toBe('model_not_allowed');
    // Refusals before the budget spend none of it: three creates still fit.
    for (let i = 0; i < 3; i++) await createJob(deps, { projectId: open.id, prompt: `p${i}` });
  });

  it('checks its input as the API does: the prompt, the branch, an unknown project', async () => {
    const project = await projectNamed('input');
    const long = await refusal(createJob(deps, { projectId: project.id, prompt: 'x'.repeat(101) }));
    expect(long).toMatchObject({ code: 'invalid_request' });
    expect(long.message).toBe('body.prompt: prompt must be at most 100 characters');
    const branch = await refusal(createJob(deps, { projectId: project.id, prompt: 'p', baseRef: '-rf' }));
    expect(branch.details?.[0]?.path).toBe('body.baseRef');
    expect((await refusal(createJob(deps, { projectId: 'nope', prompt: 'p' }))).code).toBe(
      'project_not_found',
    );
  });
});
