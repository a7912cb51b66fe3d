import type { components, operations } from './schema.js';
import type { CallOptions, Job } from './types.js';
import type { Requester } from './webhooks.js';

/*
 * The automation calls (docs/automations.md), typed from the OpenAPI document.
 */

/** An automation: a job that starts itself. */
export type Automation = components['schemas']['Automation'];
/** One event an automation saw, and what came of it. */
export type AutomationRun = components['schemas']['AutomationRun'];
export type CreateAutomationInput = NonNullable<
  operations['createAutomation']['requestBody']
>['content']['application/json'];
export type UpdateAutomationInput = NonNullable<
  operations['updateAutomation']['requestBody']
>['content']['application/json'];
export type AutomationRunPage =
  operations['listAutomationRuns']['responses'][200]['content']['application/json'];

/** What `triggerAutomation` answers: the job, and whether the run made it or was grouped into it. */
export interface TriggeredRun {
  job: Job;
  outcome: 'created' | 'grouped';
}

/** The automation calls of a client. Reads retry; changes and triggers do not (a retry would run twice). */
export function automationCalls(
  request: Requester,
  send: (
    method: 'POST',
    path: string,
    init: { body: unknown; signal?: AbortSignal | undefined },
  ) => Promise<{ status: number; body: never }>,
  projectOf: (call: CallOptions) => string,
) {
  const base = (call: CallOptions) => `/v2/agent/${encodeURIComponent(projectOf(call))}/automations`;
  const one = (call: CallOptions, automationId: string) =>
    `${base(call)}/${encodeURIComponent(automationId)}`;
  return {
    createAutomation(input: CreateAutomationInput, call: CallOptions = {}): Promise<Automation> {
      return request('POST', base(call), { body: input, signal: call.signal });
    },
    async listAutomations(call: CallOptions = {}): Promise<Automation[]> {
      const page: { automations: Automation[] } = await request('GET', base(call), {
        signal: call.signal,
        retry: true,
      });
      return page.automations;
    },
    getAutomation(automationId: string, call: CallOptions = {}): Promise<Automation> {
      return request('GET', one(call, automationId), { signal: call.signal, retry: true });
    },
    updateAutomation(
      automationId: string,
      input: UpdateAutomationInput,
      call: CallOptions = {},
    ): Promise<Automation> {
      return request('PATCH', one(call, automationId), { body: input, signal: call.signal, retry: true });
    },
    async deleteAutomation(automationId: string, call: CallOptions = {}): Promise<void> {
      await request('DELETE', one(call, automationId), { signal: call.signal });
    },
    /** Runs the automation now: a new job (201) or the job the run was grouped into (200). */
    async triggerAutomation(
      automationId: string,
      input: { variables?: Record<string, string> } = {},
      call: CallOptions = {},
    ): Promise<TriggeredRun> {
      const { status, body }: { status: number; body: Job } = await send(
        'POST',
        `${one(call, automationId)}/trigger`,
        {
          body: input,
          signal: call.signal,
        },
      );
      return { job: body, outcome: status === 201 ? 'created' : 'grouped' };
    },
    listAutomationRuns(
      automationId: string,
      page: { limit?: number; cursor?: string } & CallOptions = {},
    ): Promise<AutomationRunPage> {
      return request('GET', `${one(page, automationId)}/runs`, {
        query: { limit: page.limit, cursor: page.cursor },
        signal: page.signal,
        retry: true,
      });
    },
  };
}
