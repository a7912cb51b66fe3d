/**
 * What the conversation keeps of the model's tool inputs. A tool input is the model's own output,
 * and the SDK sends it back to the model at every later step and we store it for follow-ups; a
 * model that writes a huge file again and again would otherwise grow every request and the stored
 * row without bound. So the conversation that is sent and saved keeps a short note in place of:
 * - any string of a tool input larger than the workspace's file limit (no tool can accept it), and
 * - the longer strings of a call that was refused (the model reads the refusal; the content it sent
 *   is no use to it any more, and it can send it again if it wants to).
 * The model still reads why its call failed, from the tool result, which is never touched.
 */
import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';

/** Longest string of a refused call's input that is kept as it was sent. */
const KEPT_OF_REFUSED = 1024;

/** `messages` with oversized and refused tool inputs replaced by notes; unchanged messages are reused. */
export function compactToolInputs(messages: ModelMessage[], maxFileBytes: number): ModelMessage[] {
  const refused = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of (message as ToolModelMessage).content) {
      if (part.type === 'tool-result' && part.output.type.startsWith('error')) refused.add(part.toolCallId);
    }
  }
  return messages.map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-call') return part;
      const keep = refused.has(part.toolCallId) ? KEPT_OF_REFUSED : maxFileBytes;
      const input = capStrings(part.input, keep, maxFileBytes);
      if (input === part.input) return part;
      changed = true;
      return { ...part, input };
    });
    return changed ? ({ ...message, content } as AssistantModelMessage) : message;
  });
}

/** `value` with strings longer than `keep` replaced by a note; the same object when none was. */
function capStrings(value: unknown, keep: number, maxFileBytes: number): unknown {
  if (typeof value === 'string') {
    if (value.length <= keep) return value;
    const bytes = Buffer.byteLength(value);
    const why =
      bytes > maxFileBytes ? `over the ${Math.floor(maxFileBytes / 1024)} KiB limit` : 'the call was refused';
    return `[content of ${bytes} bytes omitted: ${why}]`;
  }
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const capped = capStrings(item, keep, maxFileBytes);
    if (capped !== item) changed = true;
    return [key, capped] as const;
  });
  if (!changed) return value;
  return Array.isArray(value) ? entries.map(([, item]) => item) : Object.fromEntries(entries);
}
