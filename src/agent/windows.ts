/**
 * The context windows of known models, in tokens, so that a run compacts its conversation before
 * the provider refuses it (context.ts). Matched by the longest prefix of the model's name, so dated
 * snapshots (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) find their family. Where a provider
 * caps the input below the total window (GPT-5: 272k of 400k), the input cap is what counts.
 * Any other model: `AGENTJOBS_CONTEXT_TOKENS`, else `DEFAULT_CONTEXT_TOKENS`.
 *
 * And the most a known model writes in one answer, for the worst case of a step that a run
 * reserves against its project's daily budget (loop.ts). The run sends no output limit of its own,
 * so the provider's is what bounds a step: the Anthropic provider asks for the model's maximum, and
 * OpenAI's models stop at theirs. Any other model may write until its window is full.
 */
import { parseModelId } from '../domain/model-id.js';

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

const OUTPUTS: Record<string, Record<string, number>> = {
  anthropic: {
    // Newer models than these write up to 128k tokens.
    claude: 128_000,
    'claude-opus-4': 32_000,
    'claude-opus-4-5': 64_000,
    'claude-opus-4-6': 128_000,
    'claude-opus-4-7': 128_000,
    'claude-opus-4-8': 128_000,
    'claude-sonnet-4': 64_000,
    'claude-sonnet-4-6': 128_000,
    'claude-haiku-4': 64_000,
    'claude-3': 4096,
  },
  openai: {
    'gpt-5': 128_000,
    'gpt-4.1': 32_768,
    'gpt-4o': 16_384,
    'gpt-4-turbo': 4096,
    o1: 100_000,
    o3: 100_000,
    'o4-mini': 100_000,
  },
};

/** The entry of `table` for `modelId`'s family (longest prefix), or undefined. */
function lookUp(table: Record<string, Record<string, number>>, modelId: string | null): number | undefined {
  const parsed = modelId ? parseModelId(modelId) : null;
  const models = parsed ? table[parsed.provider] : undefined;
  if (!parsed || !models) return undefined;
  const prefix = Object.keys(models)
    .filter((key) => parsed.model === key || parsed.model.startsWith(`${key}-`))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? models[prefix] : undefined;
}

/**
 * The window of `modelId` (`provider:model`): the table's, else `configured` (the server's
 * `AGENTJOBS_CONTEXT_TOKENS`), else `DEFAULT_CONTEXT_TOKENS`.
 */
export function contextWindowOf(modelId: string | null, configured: number | null): number {
  return lookUp(WINDOWS, modelId) ?? configured ?? DEFAULT_CONTEXT_TOKENS;
}

/** The most tokens `modelId` writes in one answer: the table's, else its whole window (`contextWindowOf`). */
export function maxOutputOf(modelId: string | null, configured: number | null): number {
  return lookUp(OUTPUTS, modelId) ?? contextWindowOf(modelId, configured);
}
