import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { useScriptedWorker } from '../support/scripted-worker.js';
import { git } from '../support/worker.js';

// The scripted model answers every call with 10 tokens in and 5 out; at $1,000 per million tokens
// each way, a step costs $0.015, so a run limited to $0.04 stops after its third step.
const PRICES = JSON.stringify({ 'openai-compatible:scripted': { input: 1000, output: 1000 } });

describe.each(testDialects())('cost limits on %s', (dialect) => {
  const scripted = useScriptedWorker({
    name: 'budget',
    dialect,
    env: { AGENTJOBS_MODEL_PRICES: PRICES, AGENTJOBS_MAX_JOB_COST_USD: '0.04' },
  });

  const write = (file: string) => ({
    toolCalls: [{ name: 'write_file', input: { path: file, content: `# ${file}\n` } }],
  });

  it('stops a run at its cost limit with budget_exceeded, keeping its work on the branch', async () => {
    const KEY = `ajs_${'K3y'.repeat(8)}`;
    scripted.model.setScript([
      write('docs/a.md'),
      write('docs/b.md'),
      write('docs/c.md'),
      write('docs/d.md'),
      { text: 'never' },
    ]);
    const job = await scripted.runJob({ prompt: `Write four pages; the docs site's key is ${KEY}` });
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('budget_exceeded');
    expect(job.error?.message).toContain('cost limit of $0.04');
    expect(job.error?.message).toContain(`kept on the branch ${job.source.ref}`);
    expect(job.usage).toMatchObject({ steps: 3, inputTokens: 30, outputTokens: 15 });
    expect(job.usage.costUsd).toBeCloseTo(0.045, 6);
    expect(scripted.model.requests).toHaveLength(3);

    // The three pages written before the limit are on the job's branch upstream; no pull request.
    const files = git(scripted.repo, 'ls-tree', '-r', '--name-only', job.source.ref).split('\n');
    expect(files).toEqual(expect.arrayContaining(['docs/a.md', 'docs/b.md', 'docs/c.md']));
    expect(files).not.toContain('docs/d.md');
    expect(job.prLink).toBeNull();
    // The kept commit quotes the prompt, redacted.
    const kept = git(scripted.repo, 'log', '-1', '--format=%B', job.source.ref);
    expect(kept).toContain("Prompt: Write four pages; the docs site's key is ajs_[redacted]");
    expect(kept).not.toContain(KEY);
    // The spend counts against the project's day.
    expect((await scripted.t.store.spend.today(scripted.project.id)).spentUsd).toBeCloseTo(0.045, 6);

    // A follow-up continues from the kept work.
    scripted.model.setScript([write('docs/d.md'), { text: 'Wrote the fourth page' }]);
    await scripted.t.store.jobs.followUp(scripted.project.id, job.id, 'Finish the fourth page');
    const finished = await scripted.settled(job.id);
    expect(finished).toMatchObject({ status: 'completed', filesChanged: 4 });
    expect(finished.usage.costUsd).toBeCloseTo(0.075, 6);
  });

  it('holds the run to its cost limit across the repair rounds its checks start', async () => {
    // The first round ends under the limit ($0.03) with a file the checks refuse (JSON that does
    // not parse); the repair round may spend only what the run has left, not a limit of its own.
    const broken = { toolCalls: [{ name: 'write_file', input: { path: 'docs/site.json', content: '{' } }] };
    scripted.model.setScript([broken, { text: 'Done' }, broken, broken, broken, broken, { text: 'never' }]);
    const job = await scripted.runJob({ prompt: 'Write the site settings' });
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('budget_exceeded');
    // One step past the limit at most, as for a run without checks.
    expect(job.usage).toMatchObject({ steps: 3 });
    expect(job.usage.costUsd).toBeCloseTo(0.045, 6);
    expect(job.error?.message).toContain('cost limit of $0.04 (it spent $0.0450)');
  });
});
