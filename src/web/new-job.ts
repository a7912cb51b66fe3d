/**
 * Starting a job from the dashboard: the form on a project's jobs page, and the call that makes the
 * job. The call is the job operation the API's route calls (`src/operations/create-job.ts`), so the
 * hourly budget, the active-job cap, validation and idempotency are the API's own. The form carries
 * an Idempotency-Key made when it was rendered: a double submit replays the first job.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyError } from 'fastify';
import { type AppError, isAppError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import { errorHeaders, statusOf, toAppError } from '../http/errors.js';
import { waitText } from '../operations/budget.js';
import { createJob, type JobOperationDeps } from '../operations/create-job.js';
import { followUp } from '../operations/follow-up.js';
import { type FieldProblem, InputError, type InputProblem } from '../operations/input.js';
import { fieldHint, type Html, html } from './html.js';

/** What the form holds; every field as the browser sent it. */
export interface NewJobValues {
  prompt: string;
  model: string;
  baseRef: string;
  draft: boolean;
  idempotencyKey: string;
}

export type NewJobErrors = Partial<Record<'prompt' | 'model' | 'baseRef' | 'form', string>>;

export interface NewJobState {
  values?: Partial<NewJobValues>;
  errors?: NewJobErrors;
}

/** The models the form offers: only when the project allows a choice. */
export const modelChoices = (project: Project): string[] =>
  project.allowedModels && project.allowedModels.length > 1 ? project.allowedModels : [];

/** Drafts exist only where a job opens a pull request. */
export const canDraft = (project: Project) => project.publish === 'pull_request';

export function readNewJob(body: unknown): NewJobValues {
  const form = (body ?? {}) as Record<string, unknown>;
  const text = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
  return {
    // Browsers send a textarea's line breaks as CRLF; the agent and the pull request get LF.
    prompt: text('prompt').replace(/\r\n?/g, '\n').trim(),
    model: text('model').trim(),
    baseRef: text('baseRef').trim(),
    draft: form.draft === 'on',
    idempotencyKey: text('idempotencyKey'),
  };
}

/** The prompt box at the top of a project's jobs page. */
export function newJobForm(
  project: Project,
  options: { maxPromptChars: number; defaultModel: string },
  csrf: string,
  state: NewJobState = {},
): Html {
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  const models = modelChoices(project);
  const selected = values.model || project.defaultModel || options.defaultModel;
  const invalid = (field: keyof NewJobErrors) => (errors[field] ? html` aria-invalid="true"` : '');
  return html`<section id="new-job"><h2>Start a job</h2>
    <form class="stack wide" method="post" action="/ui/projects/${project.id}/jobs">
      <input type="hidden" name="_csrf" value="${csrf}">
      <input type="hidden" name="idempotencyKey" value="${randomUUID()}">
      ${errors.form ? html`<div class="flash error" role="alert" id="new-job-error">${errors.form}</div>` : ''}
      <div><label for="j-prompt">What should the agent do?</label>
        <textarea id="j-prompt" name="prompt" rows="4" maxlength="${options.maxPromptChars}" placeholder="e.g. Add a FAQ page that answers how to install the CLI, and link it in the navigation." aria-describedby="h-j-prompt"${invalid('prompt')}>${values.prompt ?? ''}</textarea>
        ${fieldHint('h-j-prompt', errors.prompt, 'The agent edits the repository and opens a pull request; you can follow up on the job’s page.')}</div>
      <div class="row">
        <div><label for="j-base">Base branch</label>
          <input type="text" id="j-base" name="baseRef" value="${values.baseRef ?? project.baseBranch}" aria-describedby="h-j-base"${invalid('baseRef')}>
          ${fieldHint('h-j-base', errors.baseRef, project.publish === 'push' ? 'The branch the work is pushed to.' : 'The branch the pull request targets.')}</div>
        ${
          models.length
            ? html`<div><label for="j-model">Model</label><select id="j-model" name="model" aria-describedby="h-j-model"${invalid('model')}>${models.map(
                (model) =>
                  html`<option value="${model}"${model === selected ? html` selected` : ''}>${model}</option>`,
              )}</select>${fieldHint('h-j-model', errors.model, '')}</div>`
            : ''
        }
        ${
          canDraft(project)
            ? html`<div class="check"><input type="checkbox" id="j-draft" name="draft"${values.draft ? html` checked` : ''}><label for="j-draft">Open the pull request as a draft</label></div>`
            : ''
        }
      </div>
      <div class="actions"><button class="primary" type="submit">Start job</button></div>
    </form></section>`;
}

/** The job operations' needs, the process's lifecycle among them: a draining server takes no new work. */
export type DashboardJobDeps = JobOperationDeps;

/** What went wrong, as the form's reply carries it: the status and its headers (Retry-After). */
interface Refusal {
  status: number;
  headers: Record<string, string>;
}

/** What the operation answered, as the form shows it: the job, or what to fix and the status to send. */
export type StartOutcome = { jobId: string } | (Refusal & { errors: NewJobErrors });

/** The form's words for a server that is shutting down (the API's 503 names another instance). */
export const SHUTTING_DOWN = 'The server is shutting down; try again in a moment.';

function refusal(error: AppError): Refusal {
  return { status: statusOf(error.code), headers: errorHeaders(error) };
}

const IN_FLIGHT_RETRIES = 25;
const IN_FLIGHT_DELAY_MS = 200;

/**
 * Creates the job. A second submit of the same form while the first is still creating is refused
 * as in flight by the idempotency check; it waits for the first to finish and answers with the
 * same job, which is what the person who clicked twice meant.
 */
export async function startJob(
  deps: DashboardJobDeps,
  project: Project,
  values: NewJobValues,
): Promise<StartOutcome> {
  const request = {
    projectId: project.id,
    prompt: values.prompt,
    ...(values.model && modelChoices(project).length ? { model: values.model } : {}),
    ...(values.baseRef && values.baseRef !== project.baseBranch ? { baseRef: values.baseRef } : {}),
    ...(values.draft && canDraft(project) ? { draft: true } : {}),
    ...(values.idempotencyKey ? { idempotencyKey: `dashboard:${values.idempotencyKey}` } : {}),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const { job } = await createJob(deps, request);
      return { jobId: job.id };
    } catch (thrown) {
      const error = known(thrown, deps.store.isTransient);
      if (error.code === 'idempotency_in_flight' && attempt < IN_FLIGHT_RETRIES) {
        await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_DELAY_MS));
        continue;
      }
      return { ...refusal(error), errors: explain(error) };
    }
  }
}

/**
 * What went wrong as the API would say it: a database that is away for a moment is `unavailable`,
 * which the form can explain; anything else unexpected goes on to the dashboard's error page.
 */
function known(thrown: unknown, isTransient: (error: unknown) => boolean): AppError {
  const error = isAppError(thrown) ? thrown : toAppError(thrown as FastifyError, isTransient);
  if (error.code === 'internal_error') throw thrown;
  return error;
}

/** What the form says of each way a prompt can be wrong. */
const PROMPT_PROBLEMS: Partial<Record<InputProblem, (limit: number | undefined) => string>> = {
  missing: () => 'Write what the agent should do.',
  empty: () => 'Write what the agent should do.',
  blank: () => 'Write what the agent should do.',
  too_long: (limit) => `The prompt must be at most ${limit} characters.`,
  wrong_type: () => 'The prompt must be text.',
  control_characters: () => 'The prompt must not contain control characters.',
  malformed_unicode: () => 'The prompt must be valid Unicode (no lone surrogates).',
};

/** A wrong field, by its typed problem, next to the field it is about. */
function fieldError(error: InputError): NewJobErrors {
  const [{ field, problem, reason, limit }] = error.problems as [FieldProblem];
  if (field === 'prompt') return { prompt: PROMPT_PROBLEMS[problem]?.(limit) ?? error.message };
  if (field === 'baseRef' && problem === 'invalid_branch')
    return { baseRef: `Not a branch name git accepts: it ${reason}.` };
  return { form: error.message };
}

/** The operation's error in words a person at the form knows, on the field it is about. */
function explain(error: AppError): NewJobErrors {
  const wait = error.retryAfterSeconds ? waitText(error.retryAfterSeconds) : '';
  switch (error.code) {
    case 'invalid_request':
      return InputError.isInstance(error) ? fieldError(error) : { form: error.message };
    case 'model_not_allowed':
      return { model: 'This project does not allow that model; pick one from the list.' };
    case 'rate_limited':
      return {
        form: `This project has used its budget of jobs and follow-ups for this hour.${wait ? ` Try again in ${wait}.` : ''}`,
      };
    case 'too_many_active_jobs':
      return {
        form: 'This project has as many jobs running as it may. Wait for one to finish, or archive one, then start this one.',
      };
    case 'idempotency_mismatch':
      return {
        form: 'This form already started a job with other values. Check the jobs below; to start another, send the form again.',
      };
    case 'idempotency_in_flight':
      return { form: 'The job is still being created; it will appear in the list below.' };
    case 'unavailable':
      if (error.reason === 'draining') return { form: SHUTTING_DOWN };
      return { form: `The server is not taking new jobs right now.${wait ? ` Try again in ${wait}.` : ''}` };
    default:
      return { form: error.message };
  }
}

/**
 * Sends a follow-up through the job operation the API's route calls: the hourly budget and the
 * archived-job check are the API's. An error comes back in words for the job page's form.
 */
export async function sendFollowUp(
  deps: DashboardJobDeps,
  projectId: string,
  jobId: string,
  prompt: string,
): Promise<{ error?: undefined } | (Refusal & { error: string })> {
  try {
    await followUp(deps, { projectId, jobId, prompt });
    return {};
  } catch (thrown) {
    const error = known(thrown, deps.store.isTransient);
    const wait = error.retryAfterSeconds ? waitText(error.retryAfterSeconds) : '';
    const message =
      error.code === 'unavailable' && error.reason === 'draining'
        ? SHUTTING_DOWN
        : error.code === 'rate_limited'
          ? `This project has used its budget of jobs and follow-ups for this hour.${wait ? ` Try again in ${wait}.` : ''}`
          : error.code === 'job_archived'
            ? 'This job is archived; start a new job instead.'
            : error.message;
    return { ...refusal(error), error: message };
  }
}
