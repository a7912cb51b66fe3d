/**
 * The state of the pull requests jobs opened, and the run statuses read from it
 * (docs/automations.md, "Run outcomes"). A run's status is never stored: it is read, when runs
 * are listed, from the job as it is and its pull request's state: the local host's records
 * (`pull_requests`), else the state last learned from GitHub, GitLab or Gitea (`host_pull_requests`,
 * written from merge hooks, by the poll of open pull requests and whenever a run asks the host),
 * else open.
 */
import { type AutomationRun, type RunJobState, runStatus } from '../domain/automation.js';
import { type PullRequestState, pullRequestNumber } from '../domain/pull-request.js';
import type { Db } from './db.js';

/** Recording what hosts say of pull requests, and what the poll asks them about. */
export function hostPullRequestQueries(db: Db) {
  return {
    /** Records the state a host gave for pull request `number` of the project. */
    async recordHostState(projectId: string, number: number, state: PullRequestState, at = new Date()) {
      const checked_at = at.toISOString();
      await db.writeStatement((executor) =>
        executor
          .insertInto('host_pull_requests')
          .values({ project_id: projectId, number, state, checked_at })
          .onConflict((conflict) =>
            conflict.columns(['project_id', 'number']).doUpdateSet({ state, checked_at }),
          )
          .execute(),
      );
    },

    /** The state of the project's pull request `number`: the local record's, else as last learned from its host; null when unknown. */
    async stateOf(projectId: string, number: number): Promise<PullRequestState | null> {
      return (await pullRequestStates(db, projectId, [number])).get(number) ?? null;
    },

    /**
     * The pull requests of completed jobs that automations made and whose state is not known to be
     * final (open, or never learned), the most recently updated first: what the poll asks the host
     * about. Merged and closed ones are never asked again.
     */
    async unfinished(projectId: string, limit: number): Promise<{ jobId: string; number: number }[]> {
      const jobs = await db
        .read()
        .selectFrom('jobs')
        .select(['id', 'pr_link'])
        .where('project_id', '=', projectId)
        .where('status', '=', 'completed')
        .where('trigger', 'is not', null)
        .where('pr_link', 'is not', null)
        .orderBy('updated_at', 'desc')
        // Most are merged or closed already (never asked again): look past them.
        .limit(limit * 10)
        .execute();
      const linked = jobs.flatMap((job) => {
        const number = job.pr_link ? pullRequestNumber(job.pr_link) : null;
        return number === null ? [] : [{ jobId: job.id, number }];
      });
      const states = await pullRequestStates(
        db,
        projectId,
        linked.map((pull) => pull.number),
      );
      return linked.filter((pull) => (states.get(pull.number) ?? 'open') === 'open').slice(0, limit);
    },
  };
}

/** The state of each of the project's pull requests `numbers`: the local record's, else the host's as last learned. */
async function pullRequestStates(
  db: Db,
  projectId: string,
  numbers: number[],
): Promise<Map<number, PullRequestState>> {
  const states = new Map<number, PullRequestState>();
  if (numbers.length === 0) return states;
  const [local, remote] = await Promise.all([
    db
      .read()
      .selectFrom('pull_requests')
      .select(['number', 'state'])
      .where('project_id', '=', projectId)
      .where('number', 'in', numbers)
      .execute(),
    db
      .read()
      .selectFrom('host_pull_requests')
      .select(['number', 'state'])
      .where('project_id', '=', projectId)
      .where('number', 'in', numbers)
      .execute(),
  ]);
  for (const row of remote) states.set(Number(row.number), row.state as PullRequestState);
  for (const row of local) states.set(Number(row.number), row.state as PullRequestState);
  return states;
}

/** `runs` (of one project) with their current status (see the module doc). */
export async function withStatuses(
  db: Db,
  runs: AutomationRun[],
  projectId: string,
): Promise<AutomationRun[]> {
  const jobIds = [...new Set(runs.flatMap((run) => (run.jobId ? [run.jobId] : [])))];
  if (jobIds.length === 0) return runs;
  const jobs = await db
    .read()
    .selectFrom('jobs')
    .select(['id', 'status', 'pr_link', 'files_changed'])
    .where('id', 'in', jobIds)
    .execute();
  const numbers = jobs.flatMap((job) => {
    const number = job.pr_link ? pullRequestNumber(job.pr_link) : null;
    return number === null ? [] : [number];
  });
  const states = await pullRequestStates(db, projectId, numbers);
  const byId = new Map(
    jobs.map((job): [string, RunJobState] => {
      const number = job.pr_link ? pullRequestNumber(job.pr_link) : null;
      return [
        job.id,
        {
          status: job.status as RunJobState['status'],
          prLink: job.pr_link,
          filesChanged: Number(job.files_changed),
          pullRequest: number === null ? null : (states.get(number) ?? null),
        },
      ];
    }),
  );
  return runs.map((run) => ({
    ...run,
    status: runStatus(run.outcome, run.jobId ? (byId.get(run.jobId) ?? null) : null),
  }));
}
