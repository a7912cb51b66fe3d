/** A job's activity as the API, the dashboard and webhooks show it (DESIGN section 3, events). */

export const EVENT_TYPES = [
  'status',
  'phase',
  'message',
  'tool_call',
  'tool_result',
  'plan',
  'check',
  'commit',
  'pull_request',
  'usage',
  'context',
  'error',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One entry of a job's activity. `seq` rises by one per job, so `after=<seq>` resumes exactly. */
export interface JobEvent {
  seq: number;
  type: EventType;
  at: string;
  data: Record<string, unknown>;
}
