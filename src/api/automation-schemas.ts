/**
 * The zod schemas of the automation routes (docs/automations.md): they validate requests
 * and describe the routes in the OpenAPI document. What zod cannot see (a cron expression, a
 * timezone, a template's placeholders, a context repository's name) is checked by
 * `operations/automations.ts`, answered as 422 naming the field.
 */
import { z } from 'zod';
import {
  ALLOWED_AUTHORS_MAX,
  AUTOMATION_NAME_MAX,
  RUN_OUTCOMES,
  RUN_STATUSES,
  SKIP_REASONS,
  TRIGGER_TYPES,
  VARIABLE_NAME,
} from '../domain/automation.js';
import { ISSUE_LABELS_MAX, ISSUE_SOURCES, LABEL_MAX } from '../domain/issue-trigger.js';
import { notifyInput, notifyOutput, slackTrigger, slackTriggerOutput } from './automation-slack-schemas.js';

const branch = z.string().min(1, 'must not be empty').max(255);
const paths = z
  .array(z.string().min(1).max(500))
  .max(50)
  .nullable()
  .optional()
  .describe('Globs of paths (e.g. src/**); only a change to a matching file starts a run');

const scheduleTrigger = z
  .strictObject({
    type: z.literal('schedule'),
    cron: z.string().min(1).max(200).describe('Five fields: minute hour day month weekday'),
    timezone: z.string().max(64).optional().describe('An IANA timezone; UTC when absent'),
  })
  .meta({ id: 'ScheduleTrigger' });
const codeChangeTrigger = z
  .strictObject({
    type: z.literal('code_change'),
    repository: z.string().min(1).max(100).describe("The name of one of the project's context repositories"),
    branch,
    paths,
  })
  .meta({ id: 'CodeChangeTrigger' });
const contentChangeTrigger = z
  .strictObject({ type: z.literal('content_change'), branch, paths })
  .meta({ id: 'ContentChangeTrigger' });
const commentTrigger = z.strictObject({ type: z.literal('comment') }).meta({ id: 'CommentTrigger' });
const manualTrigger = z.strictObject({ type: z.literal('manual') }).meta({ id: 'ManualTrigger' });
const issueLabels = z
  .array(z.string().trim().min(1).max(LABEL_MAX))
  .max(ISSUE_LABELS_MAX)
  .describe(
    'Label names (any case); an issue opened or labelled with one starts a run. Empty: every issue opened',
  );
const issueTrigger = z
  .strictObject({
    type: z.literal('issue'),
    source: z
      .enum(ISSUE_SOURCES)
      .optional()
      .describe(
        "code_host (default): the project's repositories' issues, by the code host's webhook; linear: a Linear team's",
      ),
    repository: z
      .string()
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .describe('code_host only: a context repository’s name; absent or null: the content repository'),
    team: z
      .string()
      .min(1)
      .max(50)
      .nullable()
      .optional()
      .describe('linear only: the team’s key, as in ENG-123'),
    labels: issueLabels.optional(),
  })
  .meta({ id: 'IssueTrigger' });

export const triggerInput = z
  .discriminatedUnion('type', [
    scheduleTrigger,
    codeChangeTrigger,
    contentChangeTrigger,
    commentTrigger,
    manualTrigger,
    slackTrigger,
    issueTrigger,
  ])
  .describe('What starts the automation: exactly one trigger');

const name = z.string().trim().min(1, 'must not be empty').max(AUTOMATION_NAME_MAX);
const prompt = z
  .string()
  .min(1, 'must not be empty')
  .describe('The prompt template: {{name}} placeholders, no logic; an unknown placeholder is refused');
const allowedAuthors = z
  .array(z.string().min(1).max(100))
  .max(ALLOWED_AUTHORS_MAX)
  .describe('Comment authors trusted besides those the host says can write');
const model = z.string().min(1).max(200).nullable();

export const createAutomationBody = z.strictObject({
  name,
  trigger: triggerInput,
  prompt,
  enabled: z.boolean().optional().describe('true when absent'),
  group: z
    .boolean()
    .optional()
    .describe("true when absent: runs while the latest job's pull request is open continue it"),
  draft: z.boolean().optional(),
  model: model.optional(),
  baseRef: branch.nullable().optional(),
  allowedAuthors: allowedAuthors.optional(),
  notify: notifyInput.optional(),
});

export const updateAutomationBody = z.strictObject({
  name: name.optional(),
  trigger: triggerInput.optional(),
  prompt: prompt.optional(),
  enabled: z.boolean().optional(),
  group: z.boolean().optional(),
  draft: z.boolean().optional(),
  model: model.optional(),
  baseRef: branch.nullable().optional(),
  allowedAuthors: allowedAuthors.optional(),
  notify: notifyInput.optional(),
});

export const triggerAutomationBody = z
  .strictObject({
    variables: z
      .record(z.string().regex(VARIABLE_NAME, 'must be a variable name'), z.string().max(10_000))
      .optional()
      .describe('Values of the {{variables.NAME}} placeholders'),
  })
  .optional();

export const automationParams = z.strictObject({
  projectId: z.string().min(1).max(100),
  automationId: z.string().min(1).max(100),
});

export const listRunsQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .default(20)
    .describe('Page size, 1 to 100'),
  cursor: z.string().max(200).optional().describe('nextCursor from the previous page'),
});

const triggerOutput = z.union([
  z.object({ type: z.literal('schedule'), cron: z.string(), timezone: z.string() }),
  z.object({
    type: z.literal('code_change'),
    repository: z.string(),
    branch: z.string(),
    paths: z.array(z.string()).nullable(),
  }),
  z.object({ type: z.literal('content_change'), branch: z.string(), paths: z.array(z.string()).nullable() }),
  z.object({ type: z.literal('comment') }),
  z.object({ type: z.literal('manual') }),
  slackTriggerOutput,
  z.object({
    type: z.literal('issue'),
    source: z.enum(ISSUE_SOURCES),
    repository: z.string().nullable(),
    team: z.string().nullable(),
    labels: z.array(z.string()),
  }),
]);

export const automationSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    trigger: triggerOutput,
    prompt: z.string(),
    group: z.boolean(),
    draft: z.boolean(),
    model: z.string().nullable(),
    baseRef: z.string().nullable(),
    allowedAuthors: z.array(z.string()),
    notify: notifyOutput,
    createdAt: z.string(),
    updatedAt: z.string(),
    lastRunAt: z.string().nullable(),
    nextRunAt: z
      .string()
      .nullable()
      .describe("A schedule's next time; null for other triggers and while disabled"),
  })
  .meta({
    id: 'Automation',
    description:
      'A job that starts itself: on a schedule, a code change, a comment, a Slack message, an issue, or on demand.',
  });

export const automationListSchema = z.object({ automations: z.array(automationSchema) });

export const automationRunSchema = z
  .object({
    id: z.string(),
    automationId: z.string(),
    at: z.string(),
    trigger: z.object({
      type: z.enum(TRIGGER_TYPES),
      source: z.string().describe('A URL, a commit id, a schedule time, or `manual`'),
    }),
    outcome: z.enum(RUN_OUTCOMES).describe('What the run did when it was recorded; it never changes'),
    status: z
      .enum(RUN_STATUSES)
      .describe(
        "What came of the run so far, read from its job and the job's pull request: `running`, `review_needed` (the pull request is open), `accepted` (merged, or pushed to the base), `closed` (closed without merge), `no_changes`, `failed`, `skipped` (`reason` says why)",
      ),
    reason: z
      .enum(SKIP_REASONS)
      .nullable()
      .describe(
        'Why a skipped run started nothing (`invalid`: its input was refused), or `error` for a failed run',
      ),
    detail: z
      .string()
      .nullable()
      .describe('What went wrong, in words, for an `invalid` or `error` run; null otherwise'),
    jobId: z.string().nullable(),
  })
  .meta({ id: 'AutomationRun' });

export const automationRunListSchema = z.object({
  runs: z.array(automationRunSchema),
  nextCursor: z.string().nullable(),
});
