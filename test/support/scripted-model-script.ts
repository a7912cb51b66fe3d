/** The scripted model's script: the turns a test writes, how waits settle, and the JSON form of a script. */
import { existsSync } from 'node:fs';

/** One reply of the scripted model; each chat-completions request consumes one turn. */
export type ScriptedTurn =
  /** A final answer (`finish_reason: "stop"`). */
  | { text: string }
  /**
   * The model calls tools (`finish_reason: "tool_calls"`). `input` is serialised as the call's
   * `arguments`; a string is sent verbatim, which lets a test send malformed arguments.
   */
  | { toolCalls: { name: string; input: unknown }[]; text?: string }
  /** An HTTP error. Without `body`, an OpenAI-style error object naming the status is sent. */
  | { error: { status: number; body?: unknown; headers?: Record<string, string> } }
  /** Hold the request open until `waitFor` settles, then answer with `then`. */
  | { waitFor: Promise<void> | (() => Promise<void>); then: ScriptedTurn }
  /** Choose the turn from the request (its parsed body), e.g. when concurrent jobs share one script. */
  // biome-ignore lint/suspicious/noExplicitAny: the parsed request body, as in ScriptedModelServer.requests
  | { answer: (body: any) => ScriptedTurn };

/**
 * Builds a wait turn: `heldUntil(gate, { text: 'done' })`. Same as writing the object literal, which
 * Biome's noThenProperty rule flags for its `then` key.
 */
export function heldUntil(waitFor: Promise<void> | (() => Promise<void>), then: ScriptedTurn): ScriptedTurn {
  return { waitFor, then };
}

/** A turn that is answered as it is: no wait left to wait out, no choice left to make. */
export type ReplyTurn = Exclude<ScriptedTurn, { waitFor: unknown } | { answer: unknown }>;

/** Waits out any `waitFor` wrappers and asks `answer` turns, giving up when the request is aborted. */
// biome-ignore lint/suspicious/noExplicitAny: the parsed request body
export async function settle(turn: ScriptedTurn, body: any, signal: AbortSignal): Promise<ReplyTurn> {
  let current = turn;
  while ('waitFor' in current || 'answer' in current) {
    if ('answer' in current) {
      current = current.answer(body);
      continue;
    }
    const wait = typeof current.waitFor === 'function' ? current.waitFor() : current.waitFor;
    await untilAborted(wait, signal);
    current = current.then;
  }
  return current;
}

function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new Error('request aborted'));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new Error('request aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Reads a JSON script, turning `{ waitForFile }` turns into waits that poll for the file. */
export function scriptFromJson(value: unknown, source: string): ScriptedTurn[] {
  if (!Array.isArray(value)) throw new Error(`${source}: the script must be a JSON array of turns`);
  let index = 0;
  const take = (): ScriptedTurn => {
    const label = `${source}: turn ${index + 1}`;
    if (index >= value.length)
      throw new Error(`${label} is missing: a "waitForFile" turn needs one after it`);
    const item: unknown = value[index];
    index += 1;
    return turnFromJson(item, label, take);
  };
  const turns: ScriptedTurn[] = [];
  while (index < value.length) turns.push(take());
  return turns;
}

function turnFromJson(item: unknown, label: string, following: () => ScriptedTurn): ScriptedTurn {
  if (item === null || typeof item !== 'object') throw new Error(`${label} must be an object`);
  const turn = item as Record<string, unknown>;
  if (typeof turn.waitForFile === 'string') {
    const file = turn.waitForFile;
    const then =
      turn.then === undefined ? following() : turnFromJson(turn.then, `${label} "then"`, following);
    return { waitFor: () => fileExists(file), then };
  }
  const error = turn.error as { status?: unknown } | undefined;
  if (typeof turn.text === 'string' || Array.isArray(turn.toolCalls) || typeof error?.status === 'number') {
    return turn as ScriptedTurn;
  }
  throw new Error(`${label} needs "text", "toolCalls", "error": { "status" } or "waitForFile"`);
}

function fileExists(path: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (existsSync(path)) resolve();
      else setTimeout(check, 25).unref();
    };
    check();
  });
}
