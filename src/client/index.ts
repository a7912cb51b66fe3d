/**
 * `agentjobs/client`: a typed client of the agentjobs v2 API, for Node 20+ and any runtime with
 * `fetch`. It imports nothing of the server.
 *
 *     import { createClient } from 'agentjobs/client';
 *     const client = createClient({ baseUrl, apiKey, projectId });
 *     const job = await client.waitForJob((await client.createJob({ prompt })).id);
 */

export type {
  Automation,
  AutomationRun,
  AutomationRunPage,
  CreateAutomationInput,
  TriggeredRun,
  UpdateAutomationInput,
} from './automations.js';
export {
  type AgentJobsClient,
  type ClientOptions,
  type CreateJobOptions,
  createClient,
  type ListJobsOptions,
  type WaitOptions,
} from './client.js';
export { AgentJobsError, type ErrorDetail } from './errors.js';
export type { EventStreamOptions } from './events.js';
export type { FetchFunction, RetryOptions } from './retry.js';
export type { components, operations, paths } from './schema.js';
export type {
  ApiErrorBody,
  CallOptions,
  CreateJobInput,
  EventPage,
  Job,
  JobEvent,
  JobPage,
  JobStatus,
} from './types.js';
export {
  type CreateWebhookInput,
  type DeliveryPage,
  type IncomingHeaders,
  type UpdateWebhookInput,
  verifyWebhook,
  WEBHOOK_EVENT_TYPES,
  type Webhook,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
  type WebhookEventType,
  type WebhookPayload,
  WebhookVerificationError,
  type WebhookWithSecret,
} from './webhooks.js';
