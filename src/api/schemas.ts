import { z } from 'zod';
import { EVENT_TYPES } from '../domain/events.js';
import { ID_PATTERN } from '../domain/ids.js';
import { JOB_PHASES, JOB_STATUSES } from '../domain/job.js';

/**
 * The zod schemas that validate requests and describe responses. The OpenAPI document is
 * generated from these same objects, so the docs cannot drift from what the server accepts.
 */

// C0 controls other than tab, newline and carriage return, and DEL: never meaningful in a prompt.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function promptSchema(maxChars: number) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? 'prompt is required' : 'prompt must be a string'),
    })
    .min(1, 'prompt must not be empty')
    .max(maxChars, `prompt must be at most ${maxChars} characters`)
    .refine((value) => value.trim().length > 0, 'prompt must not be only whitespace')
    .refine((value) => !CONTROL_CHARACTERS.test(value), 'prompt must not contain control characters')
    .refine((value) => value.isWellFormed(), 'prompt must be valid Unicode (no lone surrogates)');
}

// Bytes git refuses anywhere in a ref name (git check-ref-format): controls, space and ~ ^ : ? * [ \.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const REF_FORBIDDEN = /[\u0000-\u0020\u007F~^:?*[\\]/;

/**
 * Why git would refuse `name` as a branch (`git check-ref-format --branch`), or null when it
 * accepts it. The worker hands the name to git; checking here answers 400 at once rather than a
 * job that fails later, and keeps option-looking names (`-rf`) away from git's argument lists.
 */
export function branchNameProblem(name: string): string | null {
  if (name.startsWith('-')) return 'must not start with "-"';
  if (name === '@' || name === 'HEAD') return `must not be "${name}"`;
  if (REF_FORBIDDEN.test(name)) {
    return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  }
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{')) return 'must not contain "@{"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) {
    return 'must not start or end with "/" or contain "//"';
  }
  if (name.endsWith('.')) return 'must not end with "."';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'must not have a part that starts with "."';
    if (component.endsWith('.lock')) return 'must not have a part that ends with ".lock"';
  }
  return null;
}

/** A branch name git accepts; shown in OpenAPI as a plain string. */
const branchName = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .superRefine((name, context) => {
    const problem = branchNameProblem(name);
    if (problem) context.addIssue({ code: 'custom', message: `is not a valid branch name: ${problem}` });
  });

export const modelIdSchema = z.string().min(1).max(200);

export function createJobBody(maxPromptChars: number) {
  return z.strictObject({
    prompt: promptSchema(maxPromptChars),
    model: modelIdSchema
      .optional()
      .describe('A model id allowed for the project, e.g. anthropic:claude-sonnet-4-5'),
    baseRef: branchName
      .optional()
      .describe("The branch the pull request targets; the project's base branch by default"),
    draft: z.boolean().optional().describe('Open the pull request as a draft'),
  });
}

export function followUpBody(maxPromptChars: number) {
  return z.strictObject({ prompt: promptSchema(maxPromptChars) });
}

/** Archive takes no options; an empty object (or no body) is fine. */
export const archiveBody = z.strictObject({}).nullish();

const idParam = (what: string) => z.string().regex(ID_PATTERN, `${what} is not a valid id`);

export const projectParams = z.strictObject({ projectId: z.string().min(1).max(100) });
export const jobParams = z.strictObject({ projectId: z.string().min(1).max(100), jobId: idParam('jobId') });

const integerParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
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

export const jobSchema = z
  .object({
    id: z.string(),
    status: z.enum(JOB_STATUSES),
    source: z.object({ repository: z.string(), ref: z.string() }),
    model: z.string().nullable(),
    prLink: z.string().nullable(),
    createdAt: z.string(),
    archivedAt: z.string().nullable(),
    projectId: z.string(),
    prompt: z.string(),
    baseRef: z.string(),
    phase: z.enum(JOB_PHASES).nullable(),
    title: z.string().nullable(),
    summary: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
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
    draft: z.boolean(),
  })
  .meta({ id: 'Job' });

export const jobListSchema = z.object({ jobs: z.array(jobSchema), nextCursor: z.string().nullable() });

export const eventSchema = z
  .object({
    seq: z.number().int(),
    type: z.enum(EVENT_TYPES),
    at: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'JobEvent' });

export const eventListSchema = z.object({ events: z.array(eventSchema), nextCursor: z.string().nullable() });

export const errorSchema = z
  .object({
    error: z.string(),
    code: z.string(),
    requestId: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error' });
