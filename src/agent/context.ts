/**
 * Keeping a long run inside the model's context window (docs/costs.md).
 *
 * Before each step the loop estimates the tokens it is about to send. Once that nears the window,
 * older tool results are replaced by short notes of what they held ("docs/guide.md, lines 1-400,
 * read earlier: read it again if needed"), oldest first, until the conversation is well under the
 * window again. What is never touched: the user's prompts, the assistant's messages (so the tool
 * inputs, among them every write_file and edit_file: the agent's edits), the plan (update_plan
 * results), and the last few steps, which the model is working from. The model can always read a
 * file again; it cannot do its work in a conversation the provider refuses.
 *
 * Compacting down to well under the threshold, rather than just under it, keeps compactions rare:
 * each one changes the conversation's beginning and so costs the provider's prompt cache once.
 * The choice is remembered (by tool call id), so a result once replaced stays replaced at every
 * later step and in the saved conversation: the requests stay a stable prefix of each other.
 *
 * A provider that refuses a request as too long (OpenAI `context_length_exceeded`, Anthropic
 * "prompt is too long", the 400s of vLLM and llama.cpp) says the window is smaller than thought: the
 * loop lowers the window to what was sent, compacts, and tries the step once more.
 */
import { APICallError, type ModelMessage, RetryError, type ToolModelMessage } from 'ai';

/** Share of the window at which compaction starts, and the share it compacts down to. */
const COMPACT_AT = 0.8;
const COMPACT_TO = 0.5;
/** Steps at the end of the conversation whose tool results are always kept whole. */
export const KEEP_RECENT_STEPS = 3;
/** Results shorter than this are not worth replacing: the note would be about as long. */
const MIN_REPLACED_CHARS = 400;
/** Tools whose results are never replaced: the plan is what the run is organised by. */
const KEPT_TOOLS = new Set(['update_plan']);

/** Rough tokens of `text`: a quarter of its length, the usual ratio for English and code. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** What one compaction did, for the job's `context` event. */
export interface Compaction {
  reason: 'near_window' | 'overflow';
  /** Tool results replaced by notes in this compaction. */
  replacedResults: number;
  tokensBefore: number;
  tokensAfter: number;
  windowTokens: number;
}

/**
 * The context keeper of one run: which tool results are replaced, and the window it keeps under.
 * `fixedTokens` is what every request carries besides the messages (system prompt, tool schemas).
 */
export function contextKeeper(options: { windowTokens: number; fixedTokens: number }) {
  let windowTokens = options.windowTokens;
  const replaced = new Set<string>();
  let overflowed = false;
  /** Provider's count over our estimate, learnt from the steps; only ever raises the estimate. */
  let ratio = 1;

  const estimate = (messages: ModelMessage[]) =>
    Math.ceil((options.fixedTokens + estimateTokens(JSON.stringify(messages))) * ratio);

  return {
    get windowTokens() {
      return windowTokens;
    },
    /** The estimate of a request carrying `messages`. */
    estimate,
    /** `messages` with the results replaced so far replaced, and no more: for the kept conversation. */
    apply: (messages: ModelMessage[]) => applyNotes(messages, replaced),
    /** A step's provider count of what was estimated as `estimated`; sharpens later estimates. */
    calibrate(estimated: number, reported: number | undefined) {
      if (!reported || estimated <= 0) return;
      ratio = Math.min(3, Math.max(ratio, (reported / estimated) * ratio));
    },
    /**
     * `messages` as they are to be sent: results replaced earlier stay replaced, and when the
     * estimate nears the window (or the provider refused the last try as too long), more are
     * replaced, oldest first. Returns the messages and, when this call replaced more, what it did.
     */
    prepare(messages: ModelMessage[]): { messages: ModelMessage[]; compaction: Compaction | null } {
      let current = applyNotes(messages, replaced);
      const before = estimate(current);
      const reason = overflowed ? 'overflow' : before > windowTokens * COMPACT_AT ? 'near_window' : null;
      overflowed = false;
      if (!reason) return { messages: current, compaction: null };
      const target = windowTokens * COMPACT_TO;
      // Each replacement saves about its result's size less the note's; one estimate at the end.
      let tokens = before;
      const chosen = new Set<string>();
      for (const [id, length] of replaceable(current)) {
        if (tokens <= target) break;
        chosen.add(id);
        tokens -= (Math.max(0, length - NOTE_CHARS) / 4) * ratio;
      }
      for (const id of chosen) replaced.add(id);
      current = applyNotes(current, chosen);
      const count = chosen.size;
      const compaction = {
        reason,
        replacedResults: count,
        tokensBefore: before,
        tokensAfter: estimate(current),
        windowTokens,
      } as const;
      return { messages: current, compaction };
    },
    /**
     * The provider refused `sentTokens` (our estimate of the refused request) as too long: the
     * window is at most that, and the next `prepare` compacts. False when nothing is left to
     * replace in `messages`, so trying again would be refused the same way.
     */
    overflow(messages: ModelMessage[], sentTokens: number): boolean {
      if (replaceable(applyNotes(messages, replaced)).length === 0) return false;
      windowTokens = Math.max(1000, Math.min(windowTokens, Math.floor(sentTokens * 0.9)));
      overflowed = true;
      return true;
    },
  };
}

export type ContextKeeper = ReturnType<typeof contextKeeper>;

/** About how long a note is, in characters (JSON included). */
const NOTE_CHARS = 160;

/** The tool results that may be replaced, oldest first: their ids and serialised lengths. */
function replaceable(messages: ModelMessage[]): [id: string, length: number][] {
  let recentFrom = messages.length;
  let seen = 0;
  for (let index = messages.length - 1; index >= 0 && seen < KEEP_RECENT_STEPS; index--) {
    if (messages[index]?.role === 'assistant') {
      seen += 1;
      recentFrom = index;
    }
  }
  const found: [string, number][] = [];
  messages.slice(0, recentFrom).forEach((message) => {
    if (message.role !== 'tool') return;
    for (const part of (message as ToolModelMessage).content) {
      if (part.type !== 'tool-result' || KEPT_TOOLS.has(part.toolName) || isNote(part.output)) continue;
      const length = outputLength(part.output);
      if (length >= MIN_REPLACED_CHARS) found.push([part.toolCallId, length]);
    }
  });
  return found;
}

const NOTE_MARK = '[Removed to save context:';

type ToolOutput = Extract<ToolModelMessage['content'][number], { type: 'tool-result' }>['output'];

function isNote(output: ToolOutput): boolean {
  return output.type === 'text' && output.value.startsWith(NOTE_MARK);
}

function outputLength(output: ToolOutput): number {
  return 'value' in output ? JSON.stringify(output.value ?? '').length : 0;
}

/** `messages` with the results of `ids` replaced by notes; unchanged messages are reused. */
function applyNotes(messages: ModelMessage[], ids: Set<string>): ModelMessage[] {
  if (ids.size === 0) return messages;
  const inputs = new Map<string, unknown>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content)
      if (part.type === 'tool-call') inputs.set(part.toolCallId, part.input);
  }
  return messages.map((message) => {
    if (message.role !== 'tool') return message;
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || !ids.has(part.toolCallId) || isNote(part.output)) return part;
      changed = true;
      const value = noteFor(part.toolName, inputs.get(part.toolCallId), part.output);
      return { ...part, output: { type: 'text' as const, value } };
    });
    return changed ? ({ ...message, content } as ToolModelMessage) : message;
  });
}

/** What a replaced result held, in a line: enough for the model to get it back if it needs it. */
function noteFor(tool: string, input: unknown, output: ToolOutput): string {
  const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const text = output.type === 'text' || output.type === 'error-text' ? output.value : '';
  const lines = text === '' ? 0 : text.split('\n').length;
  const again = 'read it again if needed.]';
  switch (tool) {
    case 'read_file': {
      // read_file's first line says which lines it showed: "docs/a.md (lines 1-400 of 1200):".
      const header = text.split('\n', 1)[0]?.replace(/:$/, '') || String(fields.path ?? 'a file');
      return `${NOTE_MARK} ${header}, read earlier; ${again}`;
    }
    case 'search_files':
      return `${NOTE_MARK} search_files for ${JSON.stringify(fields.query ?? '')}${fields.path ? ` in ${String(fields.path)}` : ''}, ${lines} lines of matches found earlier; search again if needed.]`;
    case 'list_files':
      return `${NOTE_MARK} list_files of ${String(fields.path ?? '.')}, ${lines} lines listed earlier; list again if needed.]`;
    default:
      return `${NOTE_MARK} the result of ${tool} (${lines} lines) was seen earlier; ${again}`;
  }
}

/** Patterns of a provider's "the request is longer than the model's window" answer. */
const OVERFLOW =
  /context_length_exceeded|prompt is too long|maximum context length|context window|exceeds? the (available )?context|context size|too many (input )?tokens|input is too long|request too large for model|reduce the length of the (messages|prompt)/i;

/**
 * Whether a failed call was refused for being longer than the model's window: a 400 or 413 whose
 * body or message says so, in the words of OpenAI, Anthropic and the OpenAI-compatible servers.
 */
export function isContextOverflow(error: unknown): boolean {
  const last = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(last)) return false;
  if (last.statusCode !== 400 && last.statusCode !== 413) return false;
  return OVERFLOW.test(`${last.message}\n${last.responseBody ?? ''}`);
}
