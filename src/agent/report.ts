/**
 * How a run is reported: the job events of one step, the PR title taken from the summary, and
 * provider errors turned into `AgentError`s. Events are kept small (they are stored per job and
 * streamed to dashboards), so tool inputs and results are cut, after the run's redactor blanked the
 * keys in them (before, so that a cut cannot leave half a key that no longer looks like one).
 */
import { APICallError, RetryError, type StepResult, type ToolSet } from 'ai';
import type { NewEvent, PlanEventItem } from '../domain/events.js';
import { type Redactor, redactSecrets, redactValue } from '../domain/redact.js';
import { AgentError } from './errors.js';

/** Longest string kept in a `tool_call` event's input (write_file content, edit_file text). */
const MAX_EVENT_STRING = 200;
/** Longest `tool_result` summary. */
const MAX_SUMMARY = 200;
/** Longest first line that still makes a PR title. */
export const MAX_TITLE_CHARS = 72;

/** One event to hand to the sink. */
export type ReportedEvent = NewEvent;

/**
 * The events of one finished step, in the order they happened: assistant text, then each tool call
 * with its result (and the plan after a successful `update_plan`).
 */
export function stepEvents(step: StepResult<ToolSet>, redact: Redactor): ReportedEvent[] {
  // The SDK lists all of a step's calls before their results; pair each call with its result.
  const outcomes = new Map<string, ReportedEvent[]>();
  for (const part of step.content) {
    if (part.type === 'tool-result') {
      const events: ReportedEvent[] = [
        {
          type: 'tool_result',
          data: { tool: part.toolName, ok: true, summary: firstLine(redact(String(part.output))) },
        },
      ];
      const items = (part.input as { items?: unknown } | undefined)?.items;
      if (part.toolName === 'update_plan' && Array.isArray(items))
        events.push({ type: 'plan', data: { items: redactValue(items, redact) as PlanEventItem[] } });
      outcomes.set(part.toolCallId, events);
    } else if (part.type === 'tool-error') {
      const message = part.error instanceof Error ? part.error.message : String(part.error);
      outcomes.set(part.toolCallId, [
        {
          type: 'tool_result',
          data: { tool: part.toolName, ok: false, summary: firstLine(redact(message)) },
        },
      ]);
    }
  }
  const events: ReportedEvent[] = [];
  for (const part of step.content) {
    if (part.type === 'text' && part.text.trim() !== '') {
      events.push({ type: 'message', data: { role: 'assistant', text: redact(part.text) } });
    } else if (part.type === 'tool-call') {
      events.push({
        type: 'tool_call',
        data: { tool: part.toolName, input: clipStrings(redactValue(part.input, redact)) },
      });
      events.push(...(outcomes.get(part.toolCallId) ?? []));
      outcomes.delete(part.toolCallId);
    }
  }
  for (const rest of outcomes.values()) events.push(...rest);
  return events;
}

/** The summary's first line when it makes a title (markdown heading marks and bold removed), else null. */
export function titleOf(summary: string): string | null {
  const line = summary.trim().split('\n')[0] ?? '';
  const title = line
    .replace(/^#{1,6}\s+/, '')
    .replace(/^\*\*(.*)\*\*$/, '$1')
    .replace(/^(title|summary):\s*/i, '')
    .trim();
  return title !== '' && title.length <= MAX_TITLE_CHARS ? title : null;
}

/**
 * A provider failure (after the SDK's retries) as `model_error`; `isRetryable` is the SDK's own
 * verdict on the last attempt (429 and 5xx are retryable, a bad request is not).
 */
export function modelError(error: unknown): AgentError {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const retryable = APICallError.isInstance(last) ? last.isRetryable : false;
  const attempts = RetryError.isInstance(error) ? ` after ${error.errors.length} attempts` : '';
  const status = APICallError.isInstance(last) && last.statusCode ? ` (HTTP ${last.statusCode})` : '';
  const detail = last instanceof Error ? last.message : String(last);
  return new AgentError(
    'model_error',
    redactSecrets(`The model provider failed${attempts}${status}: ${detail}`).slice(0, 1000),
    { isRetryable: retryable, cause: error },
  );
}

/** The wait a provider asked for (`retry-after-ms` or `retry-after` in seconds) with its last error, if any. */
export function retryAfterMs(error: unknown): number | null {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  const headers = APICallError.isInstance(last) ? last.responseHeaders : undefined;
  if (!headers) return null;
  const milliseconds = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const seconds = Number.parseFloat(headers['retry-after'] ?? '');
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

/**
 * A failure that reached a streamed answer without being one of the SDK's errors, as `model_error`:
 * an error event the provider sent mid-answer (Anthropic's `overloaded_error`, OpenAI's
 * `server_error`) or a connection dropped while the answer was streaming. The SDK retries only the
 * opening of a stream, never a failure within it. The provider had accepted the request, so trying
 * again may succeed, unless the event itself says otherwise (OpenAI's carry `isRetryable`).
 */
export function streamError(error: unknown): AgentError {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    isRetryable?: unknown;
    statusCode?: unknown;
  };
  const status = typeof fields.statusCode === 'number' ? ` (HTTP ${fields.statusCode})` : '';
  const message = `The model provider failed while streaming its answer${status}: ${messageOf(error)}`;
  return new AgentError('model_error', redactSecrets(message).slice(0, 1000), {
    isRetryable: typeof fields.isRetryable === 'boolean' ? fields.isRetryable : true,
    cause: error,
  });
}

/** A copy of a tool input with long strings cut, so a large write_file does not become an event as large. */
export function clipStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_EVENT_STRING
      ? `${value.slice(0, MAX_EVENT_STRING)}… [${value.length} chars]`
      : value;
  }
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => clipStrings(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, clipStrings(item, depth + 1)]));
}

/** An error's message; a provider's error event is a plain object, usually with a `message`. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY)}…` : line;
}
