import type { Command } from 'commander';
import type { AgentJobsClient, Job, JobEvent } from '../../client/index.js';
import type { CheckResult } from '../../domain/checks.js';
import type { JobEvent as DomainEvent } from '../../domain/events.js';
import { formatUsd } from '../../domain/job.js';
import { FAILURE_ADVICE } from '../../domain/job-failures.js';
import { clientFromEnv } from '../client.js';
import { CliError, type OutputOptions, print, table } from '../output.js';

interface ProjectOptions extends OutputOptions {
  project?: string;
}

function projectOf(options: ProjectOptions): string {
  const project = options.project ?? process.env.AGENTJOBS_PROJECT;
  if (!project) throw new CliError('Pass --project ID (or set AGENTJOBS_PROJECT).');
  return project;
}

/**
 * The job's branch; a job that completed with no pull request never pushed one (it changed nothing,
 * or its project pushes onto the base branch), so the name alone would send people looking for it.
 */
const branchOf = (job: Job) =>
  job.status === 'completed' && job.prLink === null ? `${job.source.ref} (none pushed)` : job.source.ref;

const describe = (job: Job) =>
  table(
    [
      ['id', job.id],
      ['status', job.phase ? `${job.status} (${job.phase})` : job.status],
      ['prompt', job.prompt.length > 80 ? `${job.prompt.slice(0, 77)}...` : job.prompt],
      ['branch', branchOf(job)],
      ['model', job.model],
      ['pull request', job.prLink ?? '-'],
      [
        'usage',
        `${job.usage.steps} steps · ${job.usage.inputTokens} tokens in (${job.usage.cachedInputTokens} cached) · ${job.usage.outputTokens} out · ${formatUsd(job.usage.costUsd)}`,
      ],
      job.error ? ['error', `${job.error.code}: ${job.error.message}`] : [],
      job.error ? ['what to do', failureAdvice(job.error.code)] : [],
      job.title ? ['title', job.title] : [],
      // The title is the first run's; the summary the latest run's, which may answer a follow-up.
      job.summary ? ['last summary', job.summary] : [],
    ].filter((row) => row.length),
  );

/** One event in a line for people: what happened, shortened. */
function describeEvent(event: DomainEvent): string {
  const text = (value: string, max = 200) => value.slice(0, max);
  switch (event.type) {
    case 'status':
      return `${event.data.status}${event.data.phase ? ` (${event.data.phase})` : ''}`;
    case 'phase':
      return `(${event.data.phase})`;
    case 'tool_call':
      return `→ ${event.data.tool} ${JSON.stringify(event.data.input ?? {}).slice(0, 100)}`;
    case 'message':
      return `${event.data.role === 'user' ? 'you' : 'agent'}: ${text(event.data.text)}`;
    case 'pull_request':
      return `pull request: ${event.data.url}${'action' in event.data ? ` · ${text(event.data.message)}` : ''}`;
    case 'error':
      return `error: ${event.data.message}`;
    case 'usage': {
      const usage = event.data;
      return `usage: ${usage.steps} steps, ${usage.inputTokens} tokens in, ${usage.outputTokens} out, cost ${formatUsd(usage.costUsd ?? null)}`;
    }
    case 'context':
      return `context: compacted (${event.data.replacedResults} older tool results replaced by notes)`;
    case 'tool_result':
      return `${event.data.ok ? '←' : '✗'} ${event.data.tool}: ${text(event.data.summary)}`;
    case 'plan': {
      const { items } = event.data;
      const done = items.filter((item) => item.status === 'completed').length;
      return `plan: ${done} of ${items.length} done`;
    }
    case 'setup':
      return `setup ${event.data.status}: ${text(event.data.message)}`;
    case 'check':
      return `checks ${event.data.status}${checkCounts(event.data.results)}`;
    case 'commit': {
      const { merge } = event.data;
      if (merge) {
        const outcome = merge.conflicts.length
          ? `conflicts left to resolve in ${merge.conflicts.join(', ')}`
          : 'clean';
        return `merge ${text(event.data.sha, 10)}: ${merge.base} into ${event.data.branch} · ${outcome}`;
      }
      const files = event.data.files.length;
      const unfinished = event.data.unfinished ? ' (unfinished work kept)' : '';
      return `commit ${text(event.data.sha, 10)} on ${event.data.branch} · ${files} file${files === 1 ? '' : 's'}${unfinished}`;
    }
  }
}

/** ": 3 problems (markdown 2, links 1)" for a check event's results, or "" when there are none. */
function checkCounts(results: readonly CheckResult[]): string {
  const counts = results
    .map((result) => [result.name, result.problems.length] as const)
    .filter(([, count]) => count > 0);
  const total = counts.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return '';
  return `: ${total} problem${total === 1 ? '' : 's'} (${counts.map(([name, count]) => `${name} ${count}`).join(', ')})`;
}

/**
 * The server's events are the domain's union (domain/events.ts), each checked against its type
 * when it was written; the generated client types their data only as a JSON object.
 */
const asDomainEvent = (event: JobEvent) => event as DomainEvent;

/** One line each, whatever the agent wrote. */
export const eventLine = (event: JobEvent) =>
  `${String(event.seq).padStart(4)}  ${event.at.slice(11, 19)}  ${event.type.padEnd(12)}  ${describeEvent(asDomainEvent(event)).replace(/\s+/g, ' ')}`;

/** Prints an event: a JSON line with --json, else a line for people. */
const printEvent = (options: OutputOptions, event: JobEvent) =>
  process.stdout.write(options.json ? `${JSON.stringify(event)}\n` : `${eventLine(event)}\n`);

/** The seq of the job's last event so far, so that a follow-up's activity is shown from there. */
async function lastSeq(client: AgentJobsClient, jobId: string, projectId: string): Promise<number> {
  let after = 0;
  for (;;) {
    const page = await client.getEvents(jobId, { projectId, after, limit: 1000 });
    after = page.events.at(-1)?.seq ?? after;
    if (page.nextCursor === null) return after;
  }
}

/**
 * Waits until the job is no longer active. On a terminal it shows the agent's activity as it
 * happens (the event stream); piped, it polls quietly so that --json output stays clean.
 */
async function waitFor(
  client: AgentJobsClient,
  projectId: string,
  jobId: string,
  timeoutSeconds: number,
  after: number,
): Promise<Job> {
  const signal = AbortSignal.timeout(timeoutSeconds * 1000);
  try {
    if (!process.stderr.isTTY) return await client.waitForJob(jobId, { projectId, signal });
    for await (const event of client.streamEvents(jobId, { projectId, after, signal })) {
      process.stderr.write(`  ${describeEvent(asDomainEvent(event))}\n`);
    }
    return await client.getJob(jobId, { projectId, signal });
  } catch (error) {
    if (!signal.aborted) throw error;
    throw new CliError(`Still active after ${timeoutSeconds} s; stopped waiting.`, 'timeout');
  }
}

function finish(options: OutputOptions, job: Job) {
  print(options, job, () => describe(job));
  // A job that did not complete is a failure for scripts that wait on it.
  if (job.status !== 'completed') process.exitCode = 1;
}

const projectOption = ['--project <id>', 'the project (or AGENTJOBS_PROJECT)'] as const;

export function registerJobCommands(program: Command) {
  const job = program
    .command('job')
    .description('Create and follow jobs through the HTTP API (AGENTJOBS_URL, AGENTJOBS_API_KEY)');
  createCommand(job);
  getCommand(job);
  listCommand(job);
  eventsCommand(job);
  messageCommand(job);
  archiveCommand(job);
}

/** `job create`: a job from a prompt; with --wait, until it ends. */
function createCommand(job: Command): void {
  job
    .command('create')
    .description('Create a job from a prompt')
    .argument('<prompt>', 'what the agent should do')
    .option(...projectOption)
    .option('--model <id>', 'a model allowed for the project')
    .option('--base <branch>', 'the branch the pull request targets')
    .option('--draft', 'open the pull request as a draft')
    .option('--wait', 'wait until the job ends; exit non-zero unless it completed')
    .option('--timeout <seconds>', 'with --wait, give up after this long', '3600')
    .option('--json', 'machine-readable output')
    .action(
      async (
        prompt: string,
        options: ProjectOptions & {
          model?: string;
          base?: string;
          draft?: boolean;
          wait?: boolean;
          timeout: string;
        },
      ) => {
        const client = clientFromEnv();
        const projectId = projectOf(options);
        const body = {
          prompt,
          ...(options.model ? { model: options.model } : {}),
          ...(options.base ? { baseRef: options.base } : {}),
          ...(options.draft ? { draft: true } : {}),
        };
        const created = await client.createJob(body, { projectId });
        if (!options.wait) return print(options, created, () => describe(created));
        if (process.stderr.isTTY) process.stderr.write(`Job ${created.id} created; waiting…\n`);
        finish(options, await waitFor(client, projectId, created.id, Number(options.timeout), 0));
      },
    );
}

/** `job get`. */
function getCommand(job: Command): void {
  job
    .command('get')
    .description('Show a job')
    .argument('<jobId>')
    .option(...projectOption)
    .option('--json', 'machine-readable output')
    .action(async (jobId: string, options: ProjectOptions) => {
      const found = await clientFromEnv().getJob(jobId, { projectId: projectOf(options) });
      print(options, found, () => describe(found));
    });
}

/** `job list`: one page of jobs. */
function listCommand(job: Command): void {
  job
    .command('list')
    .description('List jobs, newest first')
    .option(...projectOption)
    .option('--status <status>', 'active, completed, archived or failed')
    .option('--limit <n>', 'how many', '20')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .option('--json', 'machine-readable output')
    .action(async (options: ProjectOptions & { status?: string; limit: string; cursor?: string }) => {
      const pages = clientFromEnv().listJobs({
        projectId: projectOf(options),
        limit: Number(options.limit),
        ...(options.status ? { status: options.status as Job['status'] } : {}),
        ...(options.cursor ? { cursor: options.cursor } : {}),
      });
      // One page: --cursor asks for the next.
      const { value: page = { jobs: [], nextCursor: null } } = await pages.next();
      await pages.return();
      print(options, page, () =>
        [
          table([
            ['ID', 'STATUS', 'CREATED', 'PROMPT'],
            ...page.jobs.map((j) => [
              j.id,
              j.phase ? `${j.status}/${j.phase}` : j.status,
              j.createdAt,
              j.prompt.slice(0, 50),
            ]),
          ]),
          page.nextCursor ? `\nMore: --cursor ${page.nextCursor}` : '',
        ].join(''),
      );
    });
}

/** `job events`: a job's activity, or with --follow as it happens. */
function eventsCommand(job: Command): void {
  job
    .command('events')
    .description("Show a job's activity; with --follow, as it happens until the job ends")
    .argument('<jobId>')
    .option(...projectOption)
    .option('--follow', 'keep printing events as they come, until the job is no longer active')
    .option('--after <seq>', 'only events after this seq', '0')
    .option('--limit <n>', 'without --follow, how many', '200')
    .option('--json', 'one JSON object per event, a line each')
    .action(
      async (jobId: string, options: ProjectOptions & { follow?: boolean; after: string; limit: string }) => {
        const client = clientFromEnv();
        const projectId = projectOf(options);
        const after = Number(options.after);
        if (options.follow) {
          for await (const event of client.streamEvents(jobId, { projectId, after }))
            printEvent(options, event);
          return;
        }
        const page = await client.getEvents(jobId, { projectId, after, limit: Number(options.limit) });
        for (const event of page.events) printEvent(options, event);
        if (page.nextCursor !== null && !options.json) {
          process.stderr.write(`More: --after ${page.nextCursor}\n`);
        }
      },
    );
}

/** `job message`: a follow-up; with --wait, until the job ends again. */
function messageCommand(job: Command): void {
  job
    .command('message')
    .description('Send a follow-up prompt to a job')
    .argument('<jobId>')
    .argument('<prompt>')
    .option(...projectOption)
    .option('--wait', 'wait until the job ends again')
    .option('--timeout <seconds>', 'with --wait, give up after this long', '3600')
    .option('--json', 'machine-readable output')
    .action(
      async (
        jobId: string,
        prompt: string,
        options: ProjectOptions & { wait?: boolean; timeout: string },
      ) => {
        const client = clientFromEnv();
        const projectId = projectOf(options);
        const from = options.wait && process.stderr.isTTY ? await lastSeq(client, jobId, projectId) : 0;
        const updated = await client.sendMessage(jobId, prompt, { projectId });
        if (!options.wait) return print(options, updated, () => describe(updated));
        finish(options, await waitFor(client, projectId, jobId, Number(options.timeout), from));
      },
    );
}

/** `job archive`. */
function archiveCommand(job: Command): void {
  job
    .command('archive')
    .description('Archive a job (stops it first when active)')
    .argument('<jobId>')
    .option(...projectOption)
    .option('--json', 'machine-readable output')
    .action(async (jobId: string, options: ProjectOptions) => {
      const archived = await clientFromEnv().archiveJob(jobId, { projectId: projectOf(options) });
      print(options, archived, () => describe(archived));
    });
}

/** What to do about a failure, by its code; a code this CLI does not know (a newer server's) has none. */
function failureAdvice(code: string): string {
  return (FAILURE_ADVICE as Record<string, string | undefined>)[code] ?? 'See the message above.';
}
