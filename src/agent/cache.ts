/**
 * Anthropic prompt caching (docs/architecture.md#the-runs-phases): every step of a run resends the tools, the system prompt
 * and the conversation so far, and Anthropic bills what it can read from its cache at a tenth of
 * the input price. It caches only up to marked breakpoints, so each request marks two: the system
 * prompt (which, in Anthropic's order tools → system → messages, covers the tools too) and the
 * last message. The next step finds the whole previous request in the cache and pays full price
 * only for what is new. The marks live on the request only, never on the kept conversation:
 * Anthropic takes at most four per request.
 *
 * Other providers need nothing: OpenAI caches long prompts by itself, and what any provider
 * reports as cached is counted (usage.ts).
 */
import type { LanguageModel, ModelMessage, SystemModelMessage } from 'ai';

const BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** Whether `model` is served by Anthropic's Messages API, which caches only at breakpoints. */
export function cachesAtBreakpoints(model: LanguageModel): boolean {
  return typeof model === 'object' && model.provider.startsWith('anthropic');
}

/** The system prompt and `messages` with cache breakpoints on the system prompt and the last message. */
export function withBreakpoints(
  system: string,
  messages: ModelMessage[],
): { system: SystemModelMessage; messages: ModelMessage[] } {
  const last = messages.at(-1);
  const marked = last
    ? [
        ...messages.slice(0, -1),
        { ...last, providerOptions: { ...last.providerOptions, ...BREAKPOINT } } as ModelMessage,
      ]
    : messages;
  return { system: { role: 'system', content: system, providerOptions: BREAKPOINT }, messages: marked };
}
