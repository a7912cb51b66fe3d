import { z } from 'zod';
import { TRIGGER_TYPES } from '../domain/automation.js';
import { JOB_FAILURE_CODES } from '../domain/errors.js';
import { EVENT_TYPES } from '../domain/events.js';
import { JOB_PHASES, JOB_STATUSES } from '../domain/job.js';

/**
 * The zod schemas that validate requests and describe responses. The OpenAPI document is
 * generated from these same objects, so the docs cannot drift from what the server accepts.
 */

/**
 * The create's headers, for the document: the route checks Idempotency-Key itself (with its own
 * message), so any text passes here, and other headers are kept.
 */
export const createJobHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .optional()
    .describe(
      'Makes the create safe to retry for 24 hours: 1 to 255 printable ASCII characters, e.g. a UUID. The same key with the same body returns the same job.',
    ),
});

/** Archive takes no options; an empty object (or no body) is fine. */
export const archiveBody = z.strictObject({}).nullish();

/**
 * The longest id the API takes in a path (the router's limit; see http-server.ts). Any job id up
 * to it that names no job is 404 `job_not_found`, whatever its shape: a client moving over from
 * another service may hold UUIDs or ids of its own form. No id scheme in use comes near this
 * length; a longer path part is refused by the router as 414 `uri_too_long` before authentication.
 */
export const MAX_PATH_ID_CHARS = 1024;

export const projectParams = z.strictObject({ projectId: z.string().min(1).max(100) });
export const jobParams = z.strictObject({
  projectId: z.string().min(1).max(100),
  jobId: z
    .string()
    .min(1)
    .max(MAX_PATH_ID_CHARS)
    .describe('The job id; an id that names no job of the project answers 404 job_not_found'),
});

/**
 * A whole number in the query string. Validated as text (so that `1e3`, ` 5` or `0x10` are refused
 * rather than coerced) and described in OpenAPI as the integer it stands for, so that generated
 * clients take a number.
 */
const integerParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .refine((value) => /^\d+$/.test(value), 'must be a whole number')
    .meta({ type: 'integer', minimum: min, maximum: max, default: fallback })
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback);

export const listJobsQuery = z.strictObject({
  status: z.enum(JOB_STATUSES).optional(),
  limit: integerParam(1, 100, 20).describe('Page size, 1 to 100'),
  cursor: z.string().max(200).optional().describe('nextCursor from the previous page'),
});

export const listEventsQuery = z.strictObject({
  after: integerParam(0, Number.MAX_SAFE_INTEGER, 0).describe('Only events with a greater seq'),
  limit: integerParam(1, 1000, 200),
});

/** A job as it looks in examples of the OpenAPI document: one that finished with a pull request. */
const JOB_EXAMPLE = {
  id: '01JDQ2J7T0V5Y8G1ZK3M4N6P7R',
  status: 'completed',
  source: { repository: 'https://github.com/acme/docs', ref: 'agentjobs/01JDQ2J7T0V5Y8G1ZK3M4N6P7R' },
  model: 'anthropic:claude-sonnet-4-5',
  prLink: 'https://github.com/acme/docs/pull/42',
  createdAt: '2026-11-22T10:00:00.000Z',
  archivedAt: null,
  projectId: 'docs',
  prompt: 'Document the --verbose flag of the CLI on the install page.',
  baseRef: 'main',
  phase: null,
  title: 'Document the --verbose flag',
  summary: 'Document the --verbose flag\n\nI added a section on --verbose to guide/install.md.',
  error: null,
  updatedAt: '2026-11-22T10:01:12.000Z',
  completedAt: '2026-11-22T10:01:12.000Z',
  usage: { inputTokens: 18250, outputTokens: 940, steps: 6 },
  filesChanged: 1,
  checks: null,
  draft: false,
  contextRepositories: [{ name: 'code', ref: 'main', commit: '4b825dc642cb6eb9a060e54bf8d69288fbee4904' }],
  trigger: null,
};

const checkStatus = z.enum(['passed', 'failed', 'error']);

const checkProblemSchema = z.object({ path: z.string(), line: z.number().nullable(), message: z.string() });

/** The latest run of a job's checks (docs/architecture.md#the-runs-phases). */
export const checkRunSchema = z
  .object({
    status: checkStatus,
    ranAt: z.string(),
    results: z.array(
      z.object({
        name: z.string(),
        status: checkStatus,
        message: z.string(),
        problems: z.array(checkProblemSchema),
        notes: z
          .array(checkProblemSchema)
          .optional()
          .describe('Problems already present before the job changed the files: listed, never gating'),
      }),
    ),
  })
  .meta({ id: 'CheckRun' });

export const jobSchema = z
  .object({
    id: z.string().describe('Opaque, URL-safe, unique and time-sortable'),
    status: z
      .enum(JOB_STATUSES)
      .describe('active until the agent is done; completed, failed or archived after'),
    source: z
      .object({
        repository: z.string().describe("The project's repository URL"),
        ref: z
          .string()
          .describe(
            "The branch the job's work goes to (the pull request's head branch), named at creation. It exists on the repository only once a run pushed to it: a job that changed nothing (completed with prLink null and filesChanged 0) never creates it, nor does a project that publishes by pushing onto its base branch. A follow-up after the pull request was merged or closed moves the job to a new branch from the base as it is now (the first branch with -2, -3…)",
          ),
      })
      .describe('Where the work goes'),
    model: z.string().describe('The model id used, e.g. anthropic:claude-sonnet-4-5; never null'),
    prLink: z
      .string()
      .nullable()
      .describe(
        "The pull request URL; null while active, when no file changed (then no branch was pushed either), and when the project publishes by pushing onto its base branch. A follow-up after the pull request was merged or closed opens a new one, and prLink moves to it; the earlier one stays in the job's pull_request events",
      ),
    createdAt: z.string().describe('ISO 8601, UTC'),
    archivedAt: z.string().nullable(),
    projectId: z.string(),
    prompt: z.string().describe('The first prompt'),
    baseRef: z.string().describe('The branch the pull request targets'),
    phase: z.enum(JOB_PHASES).nullable().describe('Where an active job is; null when not active'),
    title: z
      .string()
      .nullable()
      .describe(
        "The job's title (and its pull request's), named by the first run that completes; follow-ups keep it. Null until then",
      ),
    summary: z
      .string()
      .nullable()
      .describe(
        "The agent's final message to the user, from the latest run: after a follow-up, its answer to that follow-up (each prompt's own answer is in the events)",
      ),
    error: z
      .object({
        code: z
          .enum(JOB_FAILURE_CODES)
          .describe(
            'Why, as a stable code to switch on; treat a code you do not know (a later version may add one) as a failure.',
          ),
        message: z.string(),
      })
      .nullable()
      .describe('Why a failed job failed'),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
    usage: z.object({
      inputTokens: z.number(),
      outputTokens: z.number(),
      cachedInputTokens: z.number(),
      steps: z.number(),
      costUsd: z.number().nullable(),
    }),
    filesChanged: z.number(),
    checks: checkRunSchema
      .nullable()
      .describe("The latest run of the checks on the job's work; null before the first"),
    draft: z
      .boolean()
      .describe(
        "Whether the pull request is a draft: asked for, or opened as one because the checks failed under the project's draft policy",
      ),
    contextRepositories: z
      .array(
        z.object({
          name: z.string().describe("The context repository's name in its project"),
          ref: z.string().describe('The branch read'),
          commit: z
            .string()
            .describe('The commit that branch named when the run fetched it; every read was at it'),
        }),
      )
      .describe(
        "Extension: the project's context repositories (read-only sources of the agent) as the job's latest run read them; empty when the project has none or no run has fetched them yet",
      ),
    trigger: z
      .object({
        type: z.enum(TRIGGER_TYPES),
        automationId: z.string(),
        source: z.string().describe('A URL, a commit id, a schedule time, or `manual`'),
      })
      .nullable()
      .describe('What started the job when an automation made it; null for jobs made through the API'),
  })
  .meta({
    id: 'Job',
    description:
      'A job: one prompt (and its follow-ups) worked on by the agent. Every field is always present.',
    examples: [JOB_EXAMPLE],
  });

export const jobListSchema = z.object({
  jobs: z.array(jobSchema),
  nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
});

export const eventSchema = z
  .object({
    seq: z.number().int(),
    type: z.enum(EVENT_TYPES),
    at: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({
    id: 'JobEvent',
    description: "One entry of a job's activity; seq rises by one per job.",
    examples: [{ seq: 3, type: 'phase', at: '2026-11-22T10:00:01.000Z', data: { phase: 'running' } }],
  });

export const eventListSchema = z.object({
  events: z.array(eventSchema),
  nextCursor: z.string().nullable().describe('The last seq on the page when there are more; pass as after'),
});

export const errorSchema = z
  .object({
    error: z.string(),
    code: z.string(),
    requestId: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({
    id: 'Error',
    description: 'Every error answer. The code is stable; the message is for people.',
    examples: [
      {
        error: 'No job 01JDQ2J7T0V5Y8G1ZK3M4N6P7R in this project.',
        code: 'job_not_found',
        requestId: 'req-1a',
      },
    ],
  });

/** An error answer of an operation in the OpenAPI document, with what it means there. */
export function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: errorSchema } } };
}

/** A success answer with a description (API tools show it; the default says nothing). */
export function jsonResponse<Schema extends z.ZodType>(description: string, schema: Schema) {
  return { description, content: { 'application/json': { schema } } };
}

/** The errors every v2 operation can answer. */
export const commonErrors = {
  400: errorResponse(
    'invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor',
  ),
  401: errorResponse('unauthorized: no key, or a malformed, unknown, revoked or expired key'),
  403: errorResponse("forbidden: another project's key, a missing scope, or an address not allowed"),
  503: errorResponse(
    'unavailable: the database is unreachable or the server is shutting down; see Retry-After',
  ),
};

/** 404 of an operation on one job. */
export const jobNotFound = errorResponse(
  'project_not_found, job_not_found: no such project, or no such job in it',
);
/** 413 and 415 of an operation that takes a JSON body. */
export const bodyErrors = {
  413: errorResponse('payload_too_large: the body is over the limit (64 KiB by default)'),
  415: errorResponse('unsupported_media_type: the body is not application/json'),
};
