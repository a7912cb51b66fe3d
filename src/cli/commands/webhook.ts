import type { Command } from 'commander';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  type Webhook as WebhookEndpoint,
  type WebhookEventType,
} from '../../client/index.js';
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

function parseEvents(text: string | undefined): WebhookEventType[] | undefined {
  if (text === undefined) return undefined;
  const events = text
    .split(',')
    .map((event) => event.trim())
    .filter(Boolean);
  const unknown = events.filter((event) => !WEBHOOK_EVENT_TYPES.includes(event as WebhookEventType));
  if (unknown.length)
    throw new CliError(`--events takes ${WEBHOOK_EVENT_TYPES.join(', ')} (unknown: ${unknown.join(', ')}).`);
  return events as WebhookEventType[];
}

const state = (endpoint: WebhookEndpoint) =>
  endpoint.enabled ? 'enabled' : endpoint.disabledReason ? 'disabled (by the service)' : 'disabled';

const lastAttempt = (delivery: WebhookDelivery) => {
  const attempt = delivery.attempts.at(-1);
  if (!attempt) return '-';
  return attempt.responseStatus === null ? (attempt.error ?? 'failed') : `HTTP ${attempt.responseStatus}`;
};

const PROJECT_OPTION = ['--project <id>', 'the project (default: AGENTJOBS_PROJECT)'] as const;

function createCommand(webhook: Command) {
  webhook
    .command('create')
    .description('Create an endpoint; its signing secret is printed once')
    .option(...PROJECT_OPTION)
    .requiredOption('--url <url>', 'the receiver, http(s)')
    .option('--events <types>', `comma-separated, from ${WEBHOOK_EVENT_TYPES.join(', ')} (default: all)`)
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'machine-readable output')
    .action(async (options: ProjectOptions & { url: string; events?: string; description?: string }) => {
      const events = parseEvents(options.events);
      const created = await clientFromEnv().createWebhook(
        {
          url: options.url,
          ...(events ? { events } : {}),
          ...(options.description !== undefined ? { description: options.description } : {}),
        },
        { projectId: projectOf(options) },
      );
      print(options, created, () =>
        [
          `Created webhook ${created.id} → ${created.url}`,
          `Events: ${created.events?.join(', ') ?? 'all'}`,
          `Signing secret (shown this once): ${created.secret}`,
        ].join('\n'),
      );
    });
}

function listAndDeleteCommands(webhook: Command) {
  webhook
    .command('list')
    .description("List the project's endpoints")
    .option(...PROJECT_OPTION)
    .option('--json', 'machine-readable output')
    .action(async (options: ProjectOptions) => {
      const webhooks = await clientFromEnv().listWebhooks({ projectId: projectOf(options) });
      print(options, { webhooks }, () =>
        webhooks.length === 0
          ? 'No webhooks.'
          : table([
              ['ID', 'URL', 'EVENTS', 'STATE'],
              ...webhooks.map((endpoint) => [
                endpoint.id,
                endpoint.url,
                endpoint.events?.join(',') ?? 'all',
                state(endpoint),
              ]),
            ]),
      );
    });

  webhook
    .command('delete <webhookId>')
    .description('Delete an endpoint with its delivery log')
    .option(...PROJECT_OPTION)
    .option('--json', 'machine-readable output')
    .action(async (webhookId: string, options: ProjectOptions) => {
      await clientFromEnv().deleteWebhook(webhookId, { projectId: projectOf(options) });
      print(options, { deleted: webhookId }, () => `Deleted webhook ${webhookId}.`);
    });
}

function deliveryCommands(webhook: Command) {
  webhook
    .command('deliveries <webhookId>')
    .description("An endpoint's deliveries, newest first, with their attempts")
    .option(...PROJECT_OPTION)
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'machine-readable output')
    .action(async (webhookId: string, options: ProjectOptions & { limit: string }) => {
      const pages = clientFromEnv().listDeliveries(webhookId, {
        projectId: projectOf(options),
        limit: Number(options.limit),
      });
      const { value: page = { deliveries: [], nextCursor: null } } = await pages.next();
      await pages.return();
      print(options, page, () =>
        page.deliveries.length === 0
          ? 'No deliveries yet.'
          : table([
              ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT'],
              ...page.deliveries.map((delivery) => [
                delivery.id,
                delivery.event.type,
                delivery.status,
                String(delivery.attempts.length),
                lastAttempt(delivery),
                delivery.nextAttemptAt ?? '-',
              ]),
            ]),
      );
    });

  webhook
    .command('redeliver <webhookId> <deliveryId>')
    .description('Send a delivery again now (same webhook-id)')
    .option(...PROJECT_OPTION)
    .option('--json', 'machine-readable output')
    .action(async (webhookId: string, deliveryId: string, options: ProjectOptions) => {
      const delivery = await clientFromEnv().redeliver(webhookId, deliveryId, {
        projectId: projectOf(options),
      });
      print(
        options,
        delivery,
        () => `Delivery ${delivery.id} (${delivery.event.type}) is queued to be sent again.`,
      );
    });
}

/**
 * `agentjobs webhook …`: a project's webhook endpoints, as a client of the v2 API, whose answers
 * carry the endpoint rules (`operations/webhook-endpoints.ts`); the commands parse and print.
 */
export function registerWebhookCommands(program: Command) {
  const webhook = program
    .command('webhook')
    .description('Manage webhook endpoints (a client of AGENTJOBS_URL with AGENTJOBS_API_KEY)');
  createCommand(webhook);
  listAndDeleteCommands(webhook);
  deliveryCommands(webhook);
}
