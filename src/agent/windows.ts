/**
 * The context windows of known models, in tokens, so that a run compacts its conversation before
 * the provider refuses it (context.ts). Matched by the longest prefix of the model's name, so dated
 * snapshots (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) find their family. Where a provider
 * caps the input below the total window (GPT-5: 272k of 400k), the input cap is what counts.
 * Any other model: `AGENTJOBS_CONTEXT_TOKENS`, else `DEFAULT_CONTEXT_TOKENS`.
 */
import { parseModelId } from './model-id.js';

/** The window assumed for a model that is neither known nor configured. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

const WINDOWS: Record<string, Record<string, number>> = {
  anthropic: {
    'claude-opus-4': 200_000,
    'claude-sonnet-4': 200_000,
    'claude-haiku-4': 200_000,
    'claude-3-7-sonnet': 200_000,
    'claude-3-5-sonnet': 200_000,
    'claude-3-5-haiku': 200_000,
    'claude-3-opus': 200_000,
    'claude-3-haiku': 200_000,
  },
  openai: {
    'gpt-5': 272_000,
    'gpt-4.1': 1_047_576,
    'gpt-4o': 128_000,
    'gpt-4-turbo': 128_000,
    o1: 200_000,
    o3: 200_000,
    'o4-mini': 200_000,
  },
};

/**
 * The window of `modelId` (`provider:model`): the table's, else `configured` (the server's
 * `AGENTJOBS_CONTEXT_TOKENS`), else `DEFAULT_CONTEXT_TOKENS`.
 */
export function contextWindowOf(modelId: string | null, configured: number | null): number {
  const parsed = modelId ? parseModelId(modelId) : null;
  const table = parsed ? WINDOWS[parsed.provider] : undefined;
  if (parsed && table) {
    const prefix = Object.keys(table)
      .filter((key) => parsed.model === key || parsed.model.startsWith(`${key}-`))
      .sort((a, b) => b.length - a.length)[0];
    if (prefix) return table[prefix] as number;
  }
  return configured ?? DEFAULT_CONTEXT_TOKENS;
}
