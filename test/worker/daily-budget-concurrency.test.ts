import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { makeGate } from '../support/gate.js';
import { heldUntil } from '../support/scripted-model.js';
import { useScriptedWorker } from '../support/scripted-worker.js';
import { waitFor } from '../support/worker.js';

// Four runs of one project go at once against a daily budget of $0.30. The scripted model is
// unknown to the price and window tables, so with AGENTJOBS_CONTEXT_TOKENS at 100,000 the most it
// may write in a step is 100,000 tokens; it reports exactly that for every answer (the worst case,
// every time). At $1 per million tokens each way a step costs $0.10001, and its worst case is that
// plus the estimated input, a few thousand tokens: about $0.104.
const RUNS = 4;
const BUDGET = 0.3;
const PRICES = JSON.stringify({ 'openai-compatible:scripted': { input: 1, output: 1 } });

describe.each(testDialects())('the daily budget under concurrent runs on %s', (dialect) => {
  const scripted = useScriptedWorker({
    name: 'daily-budget-concurrency',
    dialect,
    usage: { prompt_tokens: 10, completion_tokens: 100_000 },
    env: {
      AGENTJOBS_MODEL_PRICES: PRICES,
      AGENTJOBS_CONTEXT_TOKENS: '100000',
      AGENTJOBS_WORKER_CONCURRENCY: String(RUNS),
      AGENTJOBS_PROJECT_CONCURRENCY: String(RUNS),
    },
  });

  it('ends the day at most one step’s worst case over the budget, however many runs go at once', async () => {
    await scripted.t.store.projects.update(scripted.project.id, { dailyBudgetUsd: BUDGET });
    // Every run's first call is held until each run has either called the model or ended: the
    // runs are all under way before any of them has spent anything, as when runs start together.
    const { opened: gate, open: release } = makeGate();
    const write = (turn: number) => ({
      toolCalls: [{ name: 'write_file', input: { path: `docs/page-${turn}.md`, content: `# ${turn}\n` } }],
    });
    scripted.model.setScript([
      ...Array.from({ length: RUNS }, (_, turn) => heldUntil(gate, write(turn))),
      ...Array.from({ length: 40 }, (_, turn) => write(RUNS + turn)),
    ]);
    const jobs = await Promise.all(
      Array.from({ length: RUNS }, (_, run) =>
        scripted.t.store.jobs.create({
          projectId: scripted.project.id,
          prompt: `Write pages, run ${run}`,
          model: 'openai-compatible:scripted',
          baseRef: 'main',
          repository: scripted.repo,
          draft: false,
        }),
      ),
    );
    const all = () => Promise.all(jobs.map((job) => scripted.t.store.jobs.get(scripted.project.id, job.id)));
    await waitFor(
      all,
      (current) =>
        scripted.model.requests.length + current.filter((job) => job?.status === 'failed').length >= RUNS,
      { timeoutMs: 60_000, everyMs: 50 },
    );
    release();
    const ended = (await waitFor(all, (current) => current.every((job) => job?.status !== 'active'), {
      timeoutMs: 60_000,
      everyMs: 50,
    })) as Job[];

    // The worst case of one step: its 100,000 tokens out, and what it sent (the model's requests
    // carry the system prompt, the tools and the conversation, under 10,000 tokens at 4 characters
    // a token), at $1 per million.
    const sentChars = Math.max(
      ...scripted.model.requests.map((request) => JSON.stringify(request.body).length),
    );
    expect(sentChars).toBeLessThan(40_000);
    const stepCeiling = (100_000 + 10_000) / 1_000_000;
    const { spentUsd } = await scripted.t.store.spend.today(scripted.project.id);
    const jobsCost = ended.reduce((sum, job) => sum + (job.usage.costUsd ?? 0), 0);
    expect(jobsCost).toBeCloseTo(spentUsd, 6);
    expect(spentUsd).toBeGreaterThanOrEqual(BUDGET);
    expect(spentUsd).toBeLessThanOrEqual(BUDGET + stepCeiling);
    for (const job of ended) {
      expect(job.status).toBe('failed');
      expect(job.error?.code).toBe('budget_exceeded');
      expect(job.error?.message).toContain('daily budget of $0.30');
    }
    // Three first steps fit under the budget together (reserved: $0, $0.10…, $0.21… before each);
    // the fourth run was refused before its first call, while nothing was spent yet.
    const refusedAtOnce = ended.filter((job) => job.usage.steps === 0);
    expect(refusedAtOnce).toHaveLength(1);
    expect(refusedAtOnce[0]?.error?.message).toMatch(/\$0\.00 spent today and \$0\.3\d reserved by steps/);
    expect(scripted.model.requests).toHaveLength(RUNS - 1);
    // Nothing stays reserved once the runs are over.
    const day = new Date().toISOString().slice(0, 10);
    const row = await scripted.t.db.kysely
      .selectFrom('project_daily_spend')
      .select('reserved_usd')
      .where('project_id', '=', scripted.project.id)
      .where('day', '=', day)
      .executeTakeFirstOrThrow();
    expect(Number(row.reserved_usd)).toBeCloseTo(0, 9);
    expect(await scripted.t.db.kysely.selectFrom('spend_reservations').selectAll().execute()).toEqual([]);
  });
});
