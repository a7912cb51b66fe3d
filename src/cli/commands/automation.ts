import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Automation, CreateAutomationInput, UpdateAutomationInput } from '../../client/index.js';
import { AUTOMATION_TEMPLATES, automationTemplate } from '../../domain/automation-templates.js';
import { clientFromEnv, projectFromEnv } from '../client.js';
import { CliError, type OutputOptions, print, table } from '../output.js';

interface AutomationOptions extends OutputOptions {
  project?: string;
  name?: string;
  template?: string;
  prompt?: string;
  promptFile?: string;
  trigger?: string;
  cron?: string;
  timezone?: string;
  repository?: string;
  branch?: string;
  paths?: string;
  enable?: boolean;
  disable?: boolean;
  group?: boolean;
  draft?: boolean;
  model?: string;
  baseRef?: string;
  allowedAuthors?: string;
  channel?: string;
  notifySlack?: string;
}

type Trigger = CreateAutomationInput['trigger'];

function projectOf(options: { project?: string }): string {
  return projectFromEnv(options.project);
}

const list = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);

/** The trigger the flags describe, over `base` (a template's or the automation's). */
function triggerOf(options: AutomationOptions, base: Trigger | undefined): Trigger | undefined {
  const type = options.trigger ?? base?.type;
  const touched = [
    options.trigger,
    options.cron,
    options.timezone,
    options.repository,
    options.branch,
    options.paths,
    options.channel,
  ];
  if (type === undefined || (base !== undefined && touched.every((value) => value === undefined)))
    return base;
  const from = (base?.type === type ? base : {}) as Record<string, unknown>;
  const paths = list(options.paths) ?? (from.paths as string[] | null | undefined);
  switch (type) {
    case 'schedule':
      return {
        type,
        cron: options.cron ?? (from.cron as string) ?? '',
        timezone: options.timezone ?? (from.timezone as string | undefined) ?? 'UTC',
      };
    case 'code_change':
      return {
        type,
        repository: options.repository ?? (from.repository as string) ?? '',
        branch: options.branch ?? (from.branch as string) ?? 'main',
        paths: paths ?? null,
      };
    case 'content_change':
      return { type, branch: options.branch ?? (from.branch as string) ?? 'main', paths: paths ?? null };
    case 'comment':
    case 'manual':
      return { type };
    case 'slack':
      return { type, channel: options.channel ?? (from.channel as string) ?? '' };
    default:
      throw new CliError('--trigger takes schedule, code_change, content_change, comment, manual or slack.');
  }
}

/** The fields every command that saves takes, from the flags. */
function fieldsOf(options: AutomationOptions): UpdateAutomationInput {
  if (options.enable && options.disable) throw new CliError('Pass --enable or --disable, not both.');
  const prompt = options.promptFile !== undefined ? readFileSync(options.promptFile, 'utf8') : options.prompt;
  return {
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
    ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
    ...(options.group !== undefined ? { group: options.group } : {}),
    ...(options.draft !== undefined ? { draft: options.draft } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseRef !== undefined ? { baseRef: options.baseRef } : {}),
    ...(options.allowedAuthors !== undefined ? { allowedAuthors: list(options.allowedAuthors) ?? [] } : {}),
    ...(options.notifySlack !== undefined
      ? { notify: { slack: options.notifySlack === 'none' ? null : options.notifySlack } }
      : {}),
  };
}

const triggerText = (automation: Automation) => {
  const trigger = automation.trigger as Record<string, unknown> & { type: string };
  if (trigger.type === 'schedule') return `schedule ${trigger.cron} (${trigger.timezone})`;
  if (trigger.type === 'code_change') return `code_change ${trigger.repository}@${trigger.branch}`;
  if (trigger.type === 'content_change') return `content_change @${trigger.branch}`;
  if (trigger.type === 'slack') return `slack ${trigger.channel}`;
  return trigger.type;
};

const describe = (automation: Automation) =>
  [
    `Automation ${automation.id}: ${automation.name} (${automation.enabled ? 'enabled' : 'disabled'})`,
    `Trigger: ${triggerText(automation)}`,
    ...(automation.notify?.slack ? [`Notify: Slack ${automation.notify.slack}`] : []),
    `Group runs: ${automation.group ? 'yes' : 'no'}; last run: ${automation.lastRunAt ?? '-'}; next run: ${automation.nextRunAt ?? '-'}`,
    '',
    automation.prompt,
  ].join('\n');

/** The options `create` and `update` share. */
function savingOptions(command: Command): Command {
  return command
    .option('--project <id>', 'the project (default: AGENTJOBS_PROJECT)')
    .option('--name <text>', 'what the automation is called')
    .option('--prompt <template>', 'the prompt template ({{change.diff}}, {{comment.body}}, … placeholders)')
    .option('--prompt-file <path>', 'read the prompt template from a file')
    .option('--trigger <type>', 'schedule, code_change, content_change, comment, manual or slack')
    .option('--cron <expression>', 'schedule: five fields, e.g. "0 9 * * 1"')
    .option('--timezone <name>', 'schedule: an IANA timezone (default UTC)')
    .option('--repository <name>', "code_change: one of the project's context repositories")
    .option('--branch <name>', 'code_change, content_change: the branch watched')
    .option('--paths <globs>', 'code_change, content_change: comma-separated globs a changed file must match')
    .option('--enable', 'enable it')
    .option('--disable', 'disable it')
    .option('--group', 'continue the latest job while its pull request is open (default)')
    .option('--no-group', 'always start a new job')
    .option('--draft', 'open pull requests as drafts')
    .option('--model <id>', 'a model the project allows')
    .option('--base-ref <branch>', "the branch pull requests target (default: the project's)")
    .option('--allowed-authors <names>', 'comma-separated comment authors trusted besides writers')
    .option('--channel <id>', 'slack: the channel (C…) whose new messages are runs, mapped to the project')
    .option(
      '--notify-slack <id>',
      "a channel (C…) mapped to the project told what became of runs; 'none' for none",
    )
    .option('--json', 'machine-readable output');
}

/** `agentjobs automation …`: a project's automations, as a client of the v2 API. */
export function registerAutomationCommands(program: Command) {
  const automation = program
    .command('automation')
    .description(
      'Manage automations: jobs that start themselves (a client of AGENTJOBS_URL with AGENTJOBS_API_KEY)',
    );
  createCommand(automation);
  listCommand(automation);
  getCommand(automation);
  updateCommand(automation);
  deleteCommand(automation);
  triggerCommand(automation);
  runsCommand(automation);
}

/** `automation create`: from flags, or from a shipped template. */
function createCommand(automation: Command): void {
  savingOptions(
    automation
      .command('create')
      .description('Create an automation, from scratch or from a shipped template')
      .option(
        '--template <name>',
        `start from ${AUTOMATION_TEMPLATES.map((template) => template.name).join(', ')}`,
      ),
  ).action(async (options: AutomationOptions) => {
    const template = options.template === undefined ? undefined : automationTemplate(options.template);
    if (options.template !== undefined && !template) {
      throw new CliError(`--template takes ${AUTOMATION_TEMPLATES.map((known) => known.name).join(', ')}.`);
    }
    const fields = fieldsOf(options);
    const trigger = triggerOf(options, template?.trigger as Trigger | undefined);
    const name = fields.name ?? template?.name;
    const prompt = fields.prompt ?? template?.prompt;
    if (!trigger || !name || prompt === undefined) {
      throw new CliError('Pass --template NAME, or --name, --trigger and --prompt (or --prompt-file).');
    }
    const created = await clientFromEnv().createAutomation(
      { ...fields, name, prompt, trigger },
      { projectId: projectOf(options) },
    );
    print(options, created, () => `Created ${describe(created)}`);
  });
}

/** `automation list`: the project's automations. */
function listCommand(automation: Command): void {
  automation
    .command('list')
    .description("List the project's automations")
    .option('--project <id>', 'the project (default: AGENTJOBS_PROJECT)')
    .option('--json', 'machine-readable output')
    .action(async (options: AutomationOptions) => {
      const automations = await clientFromEnv().listAutomations({ projectId: projectOf(options) });
      print(options, { automations }, () =>
        automations.length === 0
          ? 'No automations.'
          : table([
              ['ID', 'NAME', 'TRIGGER', 'STATE', 'LAST RUN', 'NEXT RUN'],
              ...automations.map((a) => [
                a.id,
                a.name,
                triggerText(a),
                a.enabled ? 'enabled' : 'disabled',
                a.lastRunAt ?? '-',
                a.nextRunAt ?? '-',
              ]),
            ]),
      );
    });
}

/** `automation get`: one automation with its prompt. */
function getCommand(automation: Command): void {
  automation
    .command('get <automationId>')
    .description('Show an automation with its prompt')
    .option('--project <id>', 'the project (default: AGENTJOBS_PROJECT)')
    .option('--json', 'machine-readable output')
    .action(async (automationId: string, options: AutomationOptions) => {
      const found = await clientFromEnv().getAutomation(automationId, { projectId: projectOf(options) });
      print(options, found, () => describe(found));
    });
}

/** `automation update`: changes the fields the flags give. */
function updateCommand(automation: Command): void {
  savingOptions(automation.command('update <automationId>').description('Change an automation')).action(
    async (automationId: string, options: AutomationOptions) => {
      const client = clientFromEnv();
      const projectId = projectOf(options);
      const fields = fieldsOf(options);
      // A trigger flag changes the trigger; the others of its kind are kept.
      const current =
        options.trigger ||
        options.cron ||
        options.timezone ||
        options.repository ||
        options.branch ||
        options.paths ||
        options.channel
          ? await client.getAutomation(automationId, { projectId })
          : undefined;
      const trigger = current ? triggerOf(options, current.trigger as Trigger) : undefined;
      const updated = await client.updateAutomation(
        automationId,
        { ...fields, ...(trigger ? { trigger } : {}) },
        { projectId },
      );
      print(options, updated, () => `Updated ${describe(updated)}`);
    },
  );
}

/** `automation delete`. */
function deleteCommand(automation: Command): void {
  automation
    .command('delete <automationId>')
    .description('Delete an automation and its runs (its jobs stay)')
    .option('--project <id>', 'the project (default: AGENTJOBS_PROJECT)')
    .option('--json', 'machine-readable output')
    .action(async (automationId: string, options: AutomationOptions) => {
      await clientFromEnv().deleteAutomation(automationId, { projectId: projectOf(options) });
      print(options, { deleted: automationId }, () => `Deleted automation ${automationId}.`);
    });
}

/** `automation trigger`: runs one now. */
function triggerCommand(automation: Command): void {
  automation
    .command('trigger <automationId>')
    .description('Run an automation now')
    .option('--project <id>', 'the project (default: AGENTJOBS_PROJECT)')
    .option('--var <name=value...>', 'a value for {{variables.NAME}} (repeatable)')
    .option('--json', 'machine-readable output')
    .action(async (automationId: string, options: AutomationOptions & { var?: string[] }) => {
      const variables = Object.fromEntries(
        (options.var ?? []).map((pair) => {
          const at = pair.indexOf('=');
          if (at <= 0) throw new CliError(`--var takes NAME=VALUE (got ${pair}).`);
          return [pair.slice(0, at), pair.slice(at + 1)];
        }),
      );
      const { job, outcome } = await clientFromEnv().triggerAutomation(
        automationId,
        { variables },
        { projectId: projectOf(options) },
      );
      print(options, { outcome, job }, () =>
        outcome === 'created'
          ? `Started job ${job.id}.`
          : `Continued job ${job.id} (its pull request is still open).`,
      );
    });
}

/** `automation runs`: an automation's runs. */
function runsCommand(automation: Command): void {
  automation
    .command('runs <automationId>')
    .description("An automation's runs, newest first, with why a skipped one started nothing")
    .option('--project <id>', 'the project (default: AGENTJOBS_PROJECT)')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'machine-readable output')
    .action(async (automationId: string, options: AutomationOptions & { limit: string }) => {
      const page = await clientFromEnv().listAutomationRuns(automationId, {
        projectId: projectOf(options),
        limit: Number(options.limit),
      });
      print(options, page, () =>
        page.runs.length === 0
          ? 'No runs yet.'
          : table([
              ['AT', 'TRIGGER', 'SOURCE', 'OUTCOME', 'STATUS', 'REASON', 'JOB'],
              ...page.runs.map((run) => [
                run.at,
                run.trigger.type,
                run.trigger.source,
                run.outcome,
                run.status,
                run.reason ?? '-',
                run.jobId ?? '-',
              ]),
            ]),
      );
    });
}
