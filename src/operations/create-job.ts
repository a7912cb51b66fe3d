/**
 * Creating a job: the one path every entry point takes (the API, the dashboard, MCP, and the
 * automations to come). The rules live here, not in a route: the project must exist, the model is
 * chosen and checked, an Idempotency-Key makes a retry return the first job, the hourly budget is
 * spent only by a call that is going to make a job, and the active-job cap is kept by the store's
 * transaction; a draining process takes no new job. What goes wrong is an `AppError` with its code; each caller says it its own way
 * (the API as a status, the dashboard next to a field, MCP as a tool error).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { AutomationJobTrigger } from '../domain/automation.js';
import { AppError, type LimitState } from '../domain/errors.js';
import type { Job } from '../domain/job.js';
import { type Lifecycle, refuseWhileDraining } from '../domain/lifecycle.js';
import { chooseModel } from '../domain/model-id.js';
import type { Store } from '../store/store.js';
import { spendHourlyBudget } from './budget.js';
import { createJobInput, parseInput } from './input.js';

/** What the job operations need: the store, the limits and the server's default model. */
export interface JobOperationDeps {
  store: Store;
  config: {
    defaultModel: Config['defaultModel'];
    limits: Pick<Config['limits'], 'requestsPerHour' | 'activeJobsPerProject' | 'maxPromptChars'>;
  };
  /** Where a problem that does not change the answer is reported (a key that could not be given back). */
  log?: { warn(details: object, message: string): void };
  /** The process's lifecycle: while it drains, creates and follow-ups are refused (`unavailable`). */
  lifecycle?: Lifecycle | undefined;
}

/** A new job as its caller asks for it; the operation checks every field. */
export interface CreateJobRequest {
  projectId: string;
  prompt: string;
  /** A model id the project allows; the project's default, else the server's, when absent. */
  model?: string | undefined;
  /** The branch the work targets; the project's base branch when absent. */
  baseRef?: string | undefined;
  draft?: boolean | undefined;
  /** Makes the create safe to retry for 24 hours: 1 to 255 printable ASCII characters. */
  idempotencyKey?: string | undefined;
  /**
   * What started the job when an automation made it. Such a create does not spend the API's
   * hourly budget: automations have their daily runs limit instead (`operations/automation-run.ts`).
   */
  trigger?: AutomationJobTrigger | undefined;
  /** What the job's pull request quotes of the prompt unless the project quotes context repositories' text. */
  pullRequestPrompt?: string | undefined;
}

/** The job, and how the create went. */
export interface CreateJobResult {
  job: Job;
  /** True when an Idempotency-Key returned a job an earlier call made. */
  replayed: boolean;
  /** Where the project stands against its hourly budget; null for a replay or an automation's job, which spend none. */
  budget: LimitState | null;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The create's fingerprint for idempotency: key order must not matter, absent fields are absent. */
export function fingerprint(body: Record<string, unknown>): string {
  return sha256(
    JSON.stringify(
      Object.keys(body)
        .filter((key) => body[key] !== undefined)
        .sort()
        .map((key) => [key, body[key]]),
    ),
  );
}

/**
 * The checks of `createJob` that read only the request and the project: what a caller that must
 * know before it counts anything (an automation's run) asks first. Returns the fields as read.
 *
 * @throws AppError `invalid_request`, `project_not_found`, `model_not_allowed`
 */
export async function checkCreateJob({ store, config }: JobOperationDeps, request: CreateJobRequest) {
  const {
    projectId,
    idempotencyKey: _key,
    trigger: _trigger,
    pullRequestPrompt: _quoted,
    ...fields
  } = request;
  const body = parseInput(createJobInput(config.limits.maxPromptChars), withoutUndefined(fields));
  const project = await store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  const model = chooseModel(project, config.defaultModel, body.model);
  return { body, project, model };
}

/**
 * Creates a job, or returns the one an earlier call with the same Idempotency-Key made.
 *
 * @throws AppError `invalid_request`, `project_not_found`, `model_not_allowed`,
 * `idempotency_mismatch`, `idempotency_in_flight`, `rate_limited`, `too_many_active_jobs`,
 * `unavailable` (draining)
 */
export async function createJob(deps: JobOperationDeps, request: CreateJobRequest): Promise<CreateJobResult> {
  const { store, config } = deps;
  refuseWhileDraining(deps.lifecycle);
  const { projectId, idempotencyKey, trigger, pullRequestPrompt } = request;
  const { body, project, model } = await checkCreateJob(deps, request);

  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
  }
  // Only equality matters, so only a digest is stored: clients put all sorts of things there.
  const claim =
    idempotencyKey === undefined
      ? undefined
      : { projectId, key: sha256(idempotencyKey), owner: randomUUID() };
  // Gives the key back when this call fails; the failure itself stays the answer, and a key that
  // cannot be given back stops blocking once its reservation counts as abandoned.
  const release = async () => {
    if (!claim) return;
    await store.idempotency.release(claim).catch((releaseError: unknown) => {
      deps.log?.warn({ err: releaseError }, 'could not release an Idempotency-Key reservation');
    });
  };
  if (claim) {
    // When the reservation's commit is lost with the connection, this call may hold the key
    // without knowing it; the release is a no-op if it does not.
    const reservation = await store.idempotency.reserve(claim, fingerprint(body)).catch(async (error) => {
      await release();
      throw error;
    });
    if (reservation.state === 'mismatch') {
      throw new AppError(
        'idempotency_mismatch',
        'This Idempotency-Key was used with a different request body.',
      );
    }
    if (reservation.state === 'in_flight') {
      throw new AppError(
        'idempotency_in_flight',
        'A request with this Idempotency-Key is still in progress.',
        {
          retryAfterSeconds: 1,
        },
      );
    }
    if (reservation.state === 'done') {
      const job = await store.jobs.get(projectId, reservation.jobId);
      if (job) return { job, replayed: true, budget: null };
    }
  }

  // The budget is spent only by a call that is going to make a job: a replay, a call still in
  // flight and a reused key with another body create nothing, so a client retrying after a
  // timeout cannot use up its own budget, and gets its job back even when the budget is spent.
  try {
    const budget = trigger
      ? null
      : await spendHourlyBudget(store.rateLimits, projectId, config.limits.requestsPerHour);
    const job = await store.jobs.create({
      projectId,
      prompt: body.prompt,
      model,
      baseRef: body.baseRef ?? project.baseBranch,
      repository: project.repository,
      draft: body.draft ?? false,
      maxActive: config.limits.activeJobsPerProject,
      ...(claim ? { idempotency: claim } : {}),
      ...(trigger ? { trigger } : {}),
      ...(pullRequestPrompt === undefined ? {} : { pullRequestPrompt }),
    });
    return { job, replayed: false, budget };
  } catch (error) {
    await release();
    throw error;
  }
}

function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
