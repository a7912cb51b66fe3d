/**
 * What a model id (`provider:model`, docs/architecture.md#the-runs-phases) names, and which one a job gets. The one rule for
 * model ids: the configuration, the API, the dashboard, the CLI and MCP all read ids through
 * `parseModelId`, so an id one of them takes is an id the agent can run. The registry
 * (`agent/models.ts`) builds the providers.
 */
import { AppError } from './errors.js';
import type { Project } from './project.js';

/** The providers a model id may name. */
export const PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * The built-in demo model (`agent/demo-model.ts`). A bare word rather than `provider:model`: it
 * names no provider, needs no account and has only one model, so there is nothing after a colon.
 */
export const DEMO_MODEL_ID = 'demo';

/** What a model id looks like: `provider:model` with a known provider, or `demo`. */
export const MODEL_ID_PATTERN = /^(demo|(anthropic|openai|openai-compatible):\S+)$/;

/** What every entry point says of an id that is not one. */
export const MODEL_ID_RULE = `use provider:model with provider one of ${PROVIDERS.join(', ')} (e.g. anthropic:claude-sonnet-4-5), or ${DEMO_MODEL_ID} for the built-in demo model`;

/** `anthropic:claude-sonnet-4-5` → `{ provider: 'anthropic', model: 'claude-sonnet-4-5' }`, or null when malformed. */
export function parseModelId(modelId: string): { provider: Provider; model: string } | null {
  if (!MODEL_ID_PATTERN.test(modelId) || modelId === DEMO_MODEL_ID) return null;
  const colon = modelId.indexOf(':');
  return { provider: modelId.slice(0, colon) as Provider, model: modelId.slice(colon + 1) };
}

/** Whether `modelId` names a model the agent can be given: a `provider:model` id, or `demo`. */
export const isModelId = (modelId: string): boolean =>
  modelId === DEMO_MODEL_ID || parseModelId(modelId) !== null;

/** Why `modelId` is not a model id, in a sentence every entry point shows as it is; null when it is one. */
export function modelIdProblem(modelId: string): string | null {
  return isModelId(modelId) ? null : `"${modelId}" is not a model id: ${MODEL_ID_RULE}.`;
}

/**
 * The model a new job runs with: the one asked for when the project allows it, else the
 * project's default, else the server's.
 *
 * @throws AppError `model_not_allowed` for an id that is malformed or not in the project's list.
 */
export function chooseModel(
  project: Pick<Project, 'defaultModel' | 'allowedModels'>,
  serverDefault: string,
  requested: string | undefined,
): string {
  if (requested === undefined) return project.defaultModel ?? serverDefault;
  const allowed = project.allowedModels;
  if (!isModelId(requested) || (allowed && !allowed.includes(requested))) {
    const hint = allowed ? ` Allowed: ${allowed.join(', ')}.` : ` Models: ${MODEL_ID_RULE}.`;
    throw new AppError('model_not_allowed', `Model "${requested}" is not allowed for this project.${hint}`);
  }
  return requested;
}
