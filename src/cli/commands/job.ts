import type { Command } from 'commander';
import type { JobEvent } from '../../domain/events.js';
import { formatUsd, type Job } from '../../domain/job.js';
import { ApiClient } from '../client.js';
import { CliError, type OutputOptions, print, table } from '../output.js';

interface ProjectOptions extends OutputOptions {
  project?: string;
}

function projectOf(options: ProjectOptions): string {
  const project = options.project ?? process.env.AGENTJOBS_PROJECT;
  if (!project) throw new CliError('Pass --project ID (or set AGENTJOBS_PROJECT).');
  return encodeURIComponent(project);
}

const describe = (job: Job) =>
  table(
    [
      ['id', job.id],
      ['status', job.phase ? `${job.status} (${job.phase})` : job.status],
      ['prompt', job.prompt.length > 80 ? `${job.prompt.slice(0, 77)}...` : job.prompt],
      ['branch', job.source.ref],
      ['model', job.model ?? '(none configured)'],
      ['pull request', job.prLink ?? '-'],
      [
        'usage',
        `${job.usage.steps} steps · ${job.usage.inputTokens} tokens in (${job.usage.cachedInputTokens} cached) · ${job.usage.outputTokens} out · ${formatUsd(job.usage.costUsd)}`,
      ],
      job.error ? ['error', `${job.error.code}: ${job.error.message}`] : [],
      job.summary ? ['summary', job.summary] : [],
    ].filter((row) => row.length),
  );

function describeEvent(event: JobEvent): string | null {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'status':
    case 'phase':
      return `${data.status ?? ''}${data.phase ? ` (${data.phase})` : ''}`.trim();
    case 'tool_call':
      return `→ ${data.tool ?? data.name ?? 'tool'} ${JSON.stringify(data.input ?? {}).slice(0, 100)}`;
    case 'message':
      return data.role === 'user' ? `you: ${data.text}` : `agent: ${String(data.text ?? '').slice(0, 200)}`;
    case 'pull_request':
      return `pull request: ${data.url ?? ''}`;
    case 'error':
      return `error: ${data.message ?? ''}`;
    case 'usage':
      return `usage: ${data.steps} steps, ${data.inputTokens} tokens in, ${data.outputTokens} out, cost ${formatUsd(typeof data.costUsd === 'number' ? data.costUsd : null)}`;
    case 'context':
      return `context: compacted (${data.replacedResults} older tool results replaced by notes)`;
    default:
      return null;
  }
}

/**
 * Polls until the job is no longer active. On a terminal it shows the agent's activity as it
 * happens; piped, it stays quiet so that --json output is clean.
 */
async function waitFor(client: ApiClient, project: string, job: Job, timeoutSeconds: number): Promise<Job> {
  const live = process.stderr.isTTY;
  const deadline = Date.now() + timeoutSeconds * 1000;
  let after = 0;
  let current = job;
  while (current.status === 'active') {
    if (Date.now() > deadline)
      throw new CliError(
        `Still ${current.phase ?? 'active'} after ${timeoutSeconds} s; stopped waiting.`,
        'timeout',
      );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (live) {
      const page = await client.request<{ events: JobEvent[] }>(
        'GET',
        `/v2/agent/${project}/job/${job.id}/events?after=${after}`,
      );
      for (const event of page.events) {
        after = event.seq;
        const line = describeEvent(event);
        if (line) process.stderr.write(`  ${line}\n`);
      }
    }
    current = await client.request<Job>('GET', `/v2/agent/${project}/job/${job.id}`);
  }
  return current;
}

function finish(options: OutputOptions, job: Job) {
  print(options, job, () => describe(job));
  // A job that did not complete is a failure for scripts that wait on it.
  if (job.status !== 'completed') process.exitCode = 1;
}

export function registerJobCommands(program: Command) {
  const job = program
    .command('job')
    .description('Create and follow jobs through the HTTP API (AGENTJOBS_URL, AGENTJOBS_API_KEY)');
  const projectOption = ['--project <id>', 'the project (or AGENTJOBS_PROJECT)'] as const;

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
        const client = new ApiClient();
        const project = projectOf(options);
        const body = {
          prompt,
          ...(options.model ? { model: options.model } : {}),
          ...(options.base ? { baseRef: options.base } : {}),
          ...(options.draft ? { draft: true } : {}),
        };
        const created = await client.request<Job>('POST', `/v2/agent/${project}/job`, body);
        if (!options.wait) return print(options, created, () => describe(created));
        if (process.stderr.isTTY) process.stderr.write(`Job ${created.id} created; waiting…\n`);
        finish(options, await waitFor(client, project, created, Number(options.timeout)));
      },
    );

  job
    .command('get')
    .description('Show a job')
    .argument('<jobId>')
    .option(...projectOption)
    .option('--json', 'machine-readable output')
    .action(async (jobId: string, options: ProjectOptions) => {
      const found = await new ApiClient().request<Job>(
        'GET',
        `/v2/agent/${projectOf(options)}/job/${encodeURIComponent(jobId)}`,
      );
      print(options, found, () => describe(found));
    });

  job
    .command('list')
    .description('List jobs, newest first')
    .option(...projectOption)
    .option('--status <status>', 'active, completed, archived or failed')
    .option('--limit <n>', 'how many', '20')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .option('--json', 'machine-readable output')
    .action(async (options: ProjectOptions & { status?: string; limit: string; cursor?: string }) => {
      const query = new URLSearchParams({ limit: options.limit });
      if (options.status) query.set('status', options.status);
      if (options.cursor) query.set('cursor', options.cursor);
      const page = await new ApiClient().request<{ jobs: Job[]; nextCursor: string | null }>(
        'GET',
        `/v2/agent/${projectOf(options)}/job?${query}`,
      );
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
        const client = new ApiClient();
        const project = projectOf(options);
        const updated = await client.request<Job>(
          'POST',
          `/v2/agent/${project}/job/${encodeURIComponent(jobId)}/message`,
          { prompt },
        );
        if (!options.wait) return print(options, updated, () => describe(updated));
        finish(options, await waitFor(client, project, updated, Number(options.timeout)));
      },
    );

  job
    .command('archive')
    .description('Archive a job (stops it first when active)')
    .argument('<jobId>')
    .option(...projectOption)
    .option('--json', 'machine-readable output')
    .action(async (jobId: string, options: ProjectOptions) => {
      const archived = await new ApiClient().request<Job>(
        'POST',
        `/v2/agent/${projectOf(options)}/job/${encodeURIComponent(jobId)}/archive`,
      );
      print(options, archived, () => describe(archived));
    });
}
