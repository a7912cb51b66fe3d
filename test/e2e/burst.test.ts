import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { createProjectAndKey } from '../support/e2e.js';
import { useProcessSuite } from '../support/process-suite.js';
import { type ServerProcess, startServerProcess } from '../support/processes.js';
import type { ScriptedTurn } from '../support/scripted-model.js';
import { git, makeRepo, waitFor } from '../support/worker.js';

const JOBS = 30;

/**
 * The three steps of a job whose prompt is `Burst <n>`: list the files, write `burst/<n>.md`, answer.
 * Every job shares one script, so the turn is chosen from the request: how many tool results it carries.
 */
// biome-ignore lint/suspicious/noExplicitAny: the parsed chat-completions request
function listWriteAnswer(body: any): ScriptedTurn {
  const messages: { role: string; content: unknown }[] = body?.messages ?? [];
  const prompt = JSON.stringify(messages.find((message) => message.role === 'user')?.content ?? '');
  const n = /Burst (\d+)/.exec(prompt)?.[1] ?? 'unknown';
  const step = messages.filter((message) => message.role === 'tool').length;
  if (step === 0) return { toolCalls: [{ name: 'list_files', input: {} }] };
  if (step === 1)
    return { toolCalls: [{ name: 'write_file', input: { path: `burst/${n}.md`, content: `burst ${n}\n` } }] };
  return { text: `Add burst ${n}\n\nI added burst/${n}.md.` };
}

// A burst, as an automation sends it: 30 jobs posted at once to one `agentjobs serve`, whose one
// worker holds them all at once. Every job must end with a pull request of its own, and nothing may
// be done twice: one branch, one commit and one pull request per job.
describe.each(testDialects())(`%s: ${JOBS} jobs at once on one worker`, (dialect) => {
  const suite = useProcessSuite({
    name: 'burst',
    dialect,
    model: { script: Array.from({ length: 4 * JOBS }, () => ({ answer: listWriteAnswer })) },
  });
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('completes every job with its own pull request, and nothing twice', { timeout: 180_000 }, async () => {
    const { repo, baseSha } = makeRepo(suite.dir);
    const env = suite.env({
      AGENTJOBS_WORKER_CONCURRENCY: String(JOBS),
      AGENTJOBS_PROJECT_CONCURRENCY: String(JOBS),
      AGENTJOBS_RATE_LIMIT_PER_HOUR: '100000',
      AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '0',
    });
    const { projectId, key } = await createProjectAndKey(env, repo);
    server = await startServerProcess(env);
    const url = server.url;

    const posted = await Promise.all(
      Array.from({ length: JOBS }, async (_, n) => {
        const response = await fetch(`${url}/v2/agent/${projectId}/job`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: `Burst ${n}` }),
        });
        expect(response.status).toBe(201);
        return (await response.json()) as Job;
      }),
    );
    const store = suite.store();
    const finished = await waitFor(
      () => Promise.all(posted.map((job) => store.jobs.get(projectId, job.id))),
      (current) => current.every((job) => job?.status !== 'active'),
      { timeoutMs: 150_000, everyMs: 250 },
    );

    const failed = finished.filter((job) => job?.status !== 'completed');
    const errors = server.output.filter((line) => /"level":(50|60)/.test(line));
    expect(
      failed.map((job) => job?.error),
      errors.join('\n'),
    ).toEqual([]);
    // Each job ran once: one attempt, three model steps.
    expect(finished.map((job) => job?.usage.steps)).toEqual(posted.map(() => 3));
    expect(suite.model.requests.length).toBe(3 * JOBS);
    const links = new Set(finished.map((job) => job?.prLink));
    expect(links.size).toBe(JOBS);
    const branches = new Set(finished.map((job) => job?.source.ref));
    expect(branches.size).toBe(JOBS);

    const { pullRequests } = await store.pullRequests.list(projectId, { limit: 2 * JOBS });
    expect(pullRequests).toHaveLength(JOBS);
    expect(new Set(pullRequests.map((pullRequest) => pullRequest.jobId))).toEqual(
      new Set(posted.map((job) => job.id)),
    );
    for (const [n, job] of posted.entries()) {
      const done = finished[n] as Job;
      const pullRequest = pullRequests.find((candidate) => candidate.jobId === job.id);
      expect(pullRequest?.headBranch).toBe(done.source.ref);
      expect(done.prLink).toMatch(new RegExp(`/pulls/${pullRequest?.number}$`));
      // One commit on the base, holding exactly this job's page.
      expect(git(repo, 'rev-list', '--count', `main..${done.source.ref}`)).toBe('1');
      expect(git(repo, 'rev-parse', `${done.source.ref}^`)).toBe(baseSha);
      expect(git(repo, 'diff', '--name-only', `main...${done.source.ref}`)).toBe(`burst/${n}.md`);
      expect(git(repo, 'show', `${done.source.ref}:burst/${n}.md`)).toBe(`burst ${n}`);
    }
    expect(git(repo, 'rev-parse', 'main')).toBe(baseSha);
    // The workspaces are gone, and with them the worktrees the mirror knew.
    const mirror = path.join(env.AGENTJOBS_DATA_DIR ?? '', 'mirrors', `${projectId}.git`);
    expect(git(mirror, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });
});
