/**
 * What the automation tests give the store: an automation's fields with the defaults the API
 * gives them, and a code host's event as the service received it.
 */
import type { HostEvent, ReceivedHostEvent } from '../../src/domain/host-event.js';
import type { NewAutomation } from '../../src/store/automations.js';

/** A trigger on every change to the context repository `product`'s main branch. */
export const PRODUCT_MAIN = {
  type: 'code_change',
  repository: 'product',
  branch: 'main',
  paths: null,
} as const;

/** An enabled automation of `projectId`, ungrouped, not a draft, on the project's model and base. */
export function automationInput(
  projectId: string,
  fields: Pick<NewAutomation, 'name' | 'trigger' | 'prompt'> & Partial<NewAutomation>,
): NewAutomation {
  return {
    projectId,
    enabled: true,
    group: false,
    draft: false,
    model: null,
    baseRef: null,
    allowedAuthors: [],
    ...fields,
  };
}

/** The automation that answers comments calling the service, asking who asked what. */
export const answerMentions = (projectId: string, allowedAuthors: string[] = []): NewAutomation =>
  automationInput(projectId, {
    name: 'Answer mentions',
    trigger: { type: 'comment' },
    prompt: '{{comment.author}} asks: {{comment.body}}',
    allowedAuthors,
  });

let deliveries = 0;

/** `event` from `host` for `projectId` as received just now, with an id and delivery id of its own. */
export function receivedEvent(
  projectId: string,
  event: HostEvent,
  host: ReceivedHostEvent['host'] = 'github',
): ReceivedHostEvent {
  deliveries += 1;
  return {
    id: `event-${deliveries}`,
    projectId,
    host,
    deliveryId: `delivery-${deliveries}`,
    event,
    receivedAt: new Date().toISOString(),
  };
}
