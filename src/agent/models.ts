/**
 * The model registry: turns a `provider:model` id (docs/architecture.md#the-runs-phases) into an AI SDK language model. Keys
 * and the OpenAI-compatible base URL come only from `config`, never from `process.env`, and each
 * call builds its own provider instance, so there is no global state to leak between tests or jobs.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { Config } from '../config/config.js';
import { DEMO_MODEL_ID, modelIdProblem, parseModelId } from '../domain/model-id.js';
import { createDemoModel } from './demo-model.js';
import { AgentError } from './errors.js';

/** What making a language model reads of the configuration: the providers' keys and addresses. */
export type ModelSettings = Pick<Config, 'providerKeys' | 'providerBaseUrls' | 'openaiCompatibleBaseUrl'>;

/**
 * The language model for `modelId` (a job's model, else the server default); `demo` is the
 * built-in demo model, which needs nothing configured.
 *
 * @throws AgentError `model_unavailable` when the id is not
 * `provider:model` with a known provider, or the provider's key (or base URL) is missing; the
 * message names the variable to set.
 */
export function createLanguageModel(modelId: string, config: ModelSettings): LanguageModel {
  if (modelId === DEMO_MODEL_ID) return createDemoModel();
  const parsed = parseModelId(modelId);
  if (!parsed) {
    throw new AgentError(
      'model_unavailable',
      modelIdProblem(modelId) ?? `"${modelId}" is not a known model id.`,
    );
  }
  const { provider, model } = parsed;
  switch (provider) {
    case 'anthropic': {
      const apiKey = config.providerKeys.anthropic;
      if (!apiKey) throw missing(modelId, 'ANTHROPIC_API_KEY');
      const baseURL = config.providerBaseUrls.anthropic ?? undefined;
      return createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}) })(model);
    }
    case 'openai': {
      const apiKey = config.providerKeys.openai;
      if (!apiKey) throw missing(modelId, 'OPENAI_API_KEY');
      const baseURL = config.providerBaseUrls.openai ?? undefined;
      return createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) })(model);
    }
    case 'openai-compatible': {
      const baseURL = config.openaiCompatibleBaseUrl;
      if (!baseURL) throw missing(modelId, 'OPENAI_COMPATIBLE_BASE_URL');
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        // Local servers (Ollama, llama.cpp) usually need no key.
        apiKey: config.providerKeys.openaiCompatible ?? undefined,
        // Without it streamed answers carry no token counts, and the token limit could not be kept.
        includeUsage: true,
      })(model);
    }
  }
}

/** A model whose provider needs a variable that is not set: the caller says where to set it. */
export class MissingProviderError extends AgentError {
  constructor(
    readonly modelId: string,
    readonly variable: string,
  ) {
    super(
      'model_unavailable',
      `The model ${modelId} cannot be used. Set ${variable} on the server to use it, or choose another model with AGENTJOBS_MODEL.`,
    );
  }
}

const missing = (modelId: string, variable: string) => new MissingProviderError(modelId, variable);
