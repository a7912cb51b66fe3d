/**
 * The agentjobs MCP tools (docs/mcp.md): the job API, for editors and chat assistants.
 * Each tool is one job operation (`src/operations/`), the very ones the API's routes call, so a tool
 * does exactly what the API does (validation, the hourly budget, the active-job cap, idempotency,
 * the same errors), and the caller's key is checked for the tool's project and scope on every
 * call, as the API checks it on every request. Results are the operation's JSON as
 * `structuredContent` and as text; an error is a tool error whose text is the API's error body
 * (`{ error, code, requestId }`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RUN_STATUSES } from '../domain/automation.js';
import { AppError, isAppError } from '../domain/errors.js';
import { redactSecrets } from '../domain/redact.js';
import type { AutomationRunDeps } from '../operations/automation-run.js';
import { triggerAutomation } from '../operations/automations.js';
import { createJob } from '../operations/create-job.js';
import { followUp } from '../operations/follow-up.js';
import { getJob, listEvents, listJobs } from '../operations/pages.js';

/** What a tool needs of the caller's key: its project, and the scope of the tool. */
export interface ToolAccess {
  projectId: string;
  scope: 'read' | 'write';
}

/** What the tools of one MCP request are given. */
export interface McpToolsOptions {
  /** The store and limits the job and automation operations work with. */
  deps: AutomationRunDeps;
  /** Checks the caller's key again for one call: throws an `AppError` (401, 403, 404) when it may not. */
  admit(access: ToolAccess): Promise<void>;
  /**
   * Runs one call's work in its turn: the calls of one request (a JSON-RPC batch) take turns, so
   * a batch cannot do a hundred requests' work at once. Throws when the caller has gone away.
   */
  schedule<T>(work: () => Promise<T>): Promise<T>;
  /** Turns what a call threw into the API's error, for a failure that is not an `AppError`. */
  toAppError(error: unknown): AppError;
  /** Named in error bodies, as the API names it. */
  requestId: string;
  /**
   * The key's project: every tool works on it. Null for a key of the whole instance: then every
   * tool takes a `projectId` argument.
   */
  projectId: string | null;
  version: string;
}

const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;

// What a client may rely on; the API's other fields come along (the schemas are open).
const job = z.looseObject({
  id: z.string(),
  status: z.enum(JOB_STATUSES),
  phase: z.string().nullable(),
  prLink: z.string().nullable(),
  title: z.string().nullable(),
  summary: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  createdAt: z.string(),
});
const automation = z.looseObject({
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  trigger: z.looseObject({ type: z.string() }),
  notify: z.object({ slack: z.string().nullable() }),
  lastRunAt: z.string().nullable(),
  nextRunAt: z.string().nullable(),
  lastRun: z
    .looseObject({
      outcome: z.string(),
      status: z.enum(RUN_STATUSES),
      reason: z.string().nullable(),
      jobId: z.string().nullable(),
    })
    .nullable(),
});
const jobList = z.object({ jobs: z.array(job), nextCursor: z.string().nullable() });
const eventList = z.object({
  events: z.array(z.looseObject({ seq: z.number(), type: z.string(), at: z.string(), data: z.unknown() })),
  nextCursor: z.string().nullable(),
});

const jobId = z.string().min(1).describe('The job id, as create_job or list_jobs returned it.');
const prompt = (what: string) => z.string().min(1).describe(what);

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
const WRITES = { readOnlyHint: false, destructiveHint: false, openWorldHint: true } as const;

/** Builds an MCP server with the six job tools and the two automation tools for one caller. */
export function createMcpServer(options: McpToolsOptions): McpServer {
  const server = new McpServer(
    { name: 'agentjobs', version: options.version },
    {
      instructions:
        'agentjobs runs an AI agent on a documentation repository: create_job with a prompt, poll get_job until its status is completed, failed or archived (prLink is the pull request), send_message to follow up on the same pull request.',
    },
  );
  const tools = toolsOf(server, options);
  createJobTool(tools);
  getJobTool(tools);
  listJobsTool(tools);
  sendMessageTool(tools);
  archiveJobTool(tools);
  jobEventsTool(tools);
  listAutomationsTool(tools);
  triggerAutomationTool(tools);
  return server;
}

/** What each tool is registered with. */
interface Tools {
  server: McpServer;
  deps: AutomationRunDeps;
  store: AutomationRunDeps['store'];
  /** The tool's input, with a `projectId` argument when the key serves every project. */
  withProject<Shape extends z.ZodRawShape>(shape: Shape): Shape;
  /** One call: the key checked for the project and scope, then the operation, in the call's turn. */
  call(
    scope: ToolAccess['scope'],
    args: object,
    work: (project: string) => Promise<unknown>,
  ): Promise<CallToolResult>;
}

function toolsOf(server: McpServer, options: McpToolsOptions): Tools {
  const { deps, projectId } = options;
  // A project key's tools work on its project; an instance key's take the project as an argument.
  // The argument is not in the handlers' types: `base` reads it when the key has no project.
  const withProject = <Shape extends z.ZodRawShape>(shape: Shape): Shape =>
    projectId === null
      ? {
          projectId: z.string().min(1).describe('The project to work on (this key serves every project).'),
          ...shape,
        }
      : shape;
  const projectOf = (args: object) => projectId ?? (args as { projectId?: string }).projectId ?? '';
  const failure = (error: AppError): CallToolResult => ({
    isError: true,
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          error: redactSecrets(error.message),
          code: error.code,
          requestId: options.requestId,
        }),
      },
    ],
  });
  const call: Tools['call'] = (scope, args, work) =>
    options
      .schedule(async () => {
        const project = projectOf(args);
        await options.admit({ projectId: project, scope });
        return work(project);
      })
      .then(success, (error: unknown) => failure(isAppError(error) ? error : options.toAppError(error)));
  return { server, deps, store: deps.store, withProject, call };
}

/** `create_job`: a new job, from a prompt. */
function createJobTool({ server, withProject, call, deps }: Tools): void {
  server.registerTool(
    'create_job',
    {
      title: 'Create a job',
      description:
        "Hands a task to the agentjobs agent: it edits the project's repository in the background and opens a pull request. Returns the job at once, with status active; poll get_job until the status is completed (prLink is the pull request, or null when nothing changed), failed (error says why) or archived. Each create counts against the project's hourly budget.",
      inputSchema: withProject({
        prompt: prompt(
          'What the agent should do, in plain language, e.g. "Document the new --dry-run flag in guide/cli.md".',
        ),
        model: z
          .string()
          .optional()
          .describe('A model id allowed for the project, e.g. anthropic:claude-sonnet-4-5.'),
        baseRef: z
          .string()
          .optional()
          .describe("The branch the pull request targets; the project's base branch by default."),
        draft: z.boolean().optional().describe('Open the pull request as a draft.'),
        idempotencyKey: z
          .string()
          .optional()
          .describe(
            'Any unique string; retrying with the same one returns the same job instead of a second.',
          ),
      }),
      outputSchema: job,
      annotations: WRITES,
    },
    async (args) => {
      const { projectId: _project, ...request } = args as typeof args & { projectId?: string };
      return call('write', args, async (project) => {
        const { job } = await createJob(deps, { projectId: project, ...request });
        return job;
      });
    },
  );
}

/** `get_job`: one job. */
function getJobTool({ server, withProject, call, store }: Tools): void {
  server.registerTool(
    'get_job',
    {
      title: 'Get a job',
      description:
        "Reads a job: status (active, completed, failed, archived), phase while active (queued, preparing, running, publishing), prLink, title (named by the first run), summary (the agent's final message of the latest run: after send_message, its answer to that follow-up), error, usage. Poll this after create_job or send_message, every few seconds.",
      inputSchema: withProject({ jobId }),
      outputSchema: job,
      annotations: READ_ONLY,
    },
    async (args) => call('read', args, (project) => getJob(store, project, args.jobId)),
  );
}

/** `list_jobs`: the project's jobs, a page at a time. */
function listJobsTool({ server, withProject, call, store }: Tools): void {
  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description:
        "Lists the project's jobs, newest first, a page at a time. Pass nextCursor back as cursor for the next page; null means there is none.",
      inputSchema: withProject({
        status: z.enum(JOB_STATUSES).optional().describe('Only jobs with this status.'),
        limit: z.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 20).'),
        cursor: z.string().optional().describe('nextCursor from the previous page.'),
      }),
      outputSchema: jobList,
      annotations: READ_ONLY,
    },
    async ({ status, limit, cursor, ...args }) =>
      call('read', args, (project) => listJobs(store, project, { status, limit: limit ?? 20, cursor })),
  );
}

/** `send_message`: a follow-up on a job. */
function sendMessageTool({ server, withProject, call, deps }: Tools): void {
  server.registerTool(
    'send_message',
    {
      title: 'Follow up on a job',
      description:
        'Sends a follow-up instruction to a job. A completed or failed job becomes active again and the agent continues on the same branch, updating the same pull request; an active job gets it at its next step. Archived jobs refuse (job_archived). Counts against the hourly budget.',
      inputSchema: withProject({
        jobId,
        prompt: prompt('The follow-up instruction, e.g. "Also add an example".'),
      }),
      outputSchema: job,
      annotations: WRITES,
    },
    async ({ prompt: text, ...args }) =>
      call('write', args, async (project) => {
        const { job } = await followUp(deps, { projectId: project, jobId: args.jobId, prompt: text });
        return job;
      }),
  );
}

/** `archive_job`: stops a job for good. */
function archiveJobTool({ server, withProject, call, store }: Tools): void {
  server.registerTool(
    'archive_job',
    {
      title: 'Archive a job',
      description:
        'Archives a job: a running agent is stopped and its unpublished work dropped. Final: an archived job takes no follow-ups. Archiving twice returns the job unchanged.',
      inputSchema: withProject({ jobId }),
      outputSchema: job,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => call('write', args, (project) => store.jobs.archive(project, args.jobId)),
  );
}

/** `get_job_events`: a job's activity. */
function jobEventsTool({ server, withProject, call, store }: Tools): void {
  server.registerTool(
    'get_job_events',
    {
      title: "Read a job's activity",
      description:
        "The agent's activity on a job, oldest first: status and phase changes, its messages, tool calls and results, its plan, commits, the pull request, usage, errors. Each event has a seq; pass the last seq you saw as after (or nextCursor, when not null) to read only newer ones.",
      inputSchema: withProject({
        jobId,
        after: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Only events with a greater seq (default 0: from the start).'),
        limit: z.number().int().min(1).max(1000).optional().describe('Page size, 1 to 1000 (default 200).'),
      }),
      outputSchema: eventList,
      annotations: READ_ONLY,
    },
    async ({ after, limit, ...args }) =>
      call('read', args, async (project) => {
        await getJob(store, project, args.jobId);
        return listEvents(store, args.jobId, { after: after ?? 0, limit: limit ?? 200 });
      }),
  );
}

/** `list_automations`: the project's automations. */
function listAutomationsTool({ server, withProject, call, store }: Tools): void {
  server.registerTool(
    'list_automations',
    {
      title: 'List automations',
      description:
        "Lists the project's automations: jobs that start themselves on a schedule, a code change, a comment, a Slack message, an issue, or on demand. Each has its trigger, whether it is enabled, the Slack channel it notifies (notify.slack), its last and next run times, and its last run (lastRun) with its status: running, review_needed (pull request open), accepted (merged), closed (closed without merge), no_changes, failed or skipped (reason says why).",
      inputSchema: withProject({}),
      outputSchema: z.object({ automations: z.array(automation) }),
      annotations: READ_ONLY,
    },
    async (args) =>
      call('read', args, async (project) => {
        if (!(await store.projects.get(project)))
          throw new AppError('project_not_found', `No project ${project}.`);
        const automations = await store.automations.list(project);
        // Each with its last run's current status (a project has a handful of automations).
        const lastRuns = await Promise.all(
          automations.map((each) => store.automations.runs(each.id, { limit: 1 })),
        );
        return {
          automations: automations.map((each, index) => ({
            ...each,
            lastRun: lastRuns[index]?.runs[0] ?? null,
          })),
        };
      }),
  );
}

/** `trigger_automation`: runs an automation now. */
function triggerAutomationTool({ server, withProject, call, deps }: Tools): void {
  server.registerTool(
    'trigger_automation',
    {
      title: 'Run an automation now',
      description:
        "Runs an automation now: a new job, or, while the automation's pull request is still open, a follow-up on its job (outcome grouped). Returns the job and the outcome; poll get_job. A disabled automation (automation_disabled), the day's runs used (automation_limit_exceeded) or the daily budget spent (budget_exceeded) are errors, recorded as skipped runs.",
      inputSchema: withProject({
        automationId: z.string().min(1).describe('The automation id, as list_automations returned it.'),
        variables: z
          .record(z.string(), z.string())
          .optional()
          .describe('Values of the {{variables.NAME}} placeholders of its prompt.'),
      }),
      outputSchema: z.object({ outcome: z.enum(['created', 'grouped']), job }),
      annotations: WRITES,
    },
    async ({ automationId, variables, ...args }) =>
      call('write', args, async (project) => {
        const { run, job } = await triggerAutomation(deps, project, automationId, variables ?? {});
        return { outcome: run.outcome, job };
      }),
  );
}

/** The tool result of what an operation returned: its JSON as structured content and as text. */
function success(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}
