/**
 * What a model id (`provider:model`, DESIGN §5) names. Apart from the registry (`models.ts`), which
 * builds providers and throws the agent's errors: prices and context windows read ids too, and the
 * agent's errors carry usage, which is priced.
 */

/** The providers a model id may name. */
export const PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * The built-in demo model (`demo-model.ts`). A bare word rather than `provider:model`: it names no
 * provider, needs no account and has only one model, so there is nothing after a colon to choose.
 */
export const DEMO_MODEL_ID = 'demo';

/** What a model id looks like: `provider:model` with a known provider, or `demo`. */
export const MODEL_ID_PATTERN = /^(demo|(anthropic|openai|openai-compatible):\S+)$/;

/** `anthropic:claude-sonnet-4-5` → `{ provider: 'anthropic', model: 'claude-sonnet-4-5' }`, or null when malformed. */
export function parseModelId(modelId: string): { provider: Provider; model: string } | null {
  const colon = modelId.indexOf(':');
  if (colon < 0) return null;
  const provider = modelId.slice(0, colon);
  const model = modelId.slice(colon + 1).trim();
  if (!(PROVIDERS as readonly string[]).includes(provider) || model === '') return null;
  return { provider: provider as Provider, model };
}
