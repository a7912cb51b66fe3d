import { describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../config/config.js';
import { parseModelId } from '../domain/model-id.js';
import { AgentError } from './errors.js';
import { createLanguageModel } from './models.js';

/** A config from a plain environment, as the server would read it. */
function config(env: Record<string, string> = {}): Config {
  return loadConfig(env);
}

function unavailable(modelId: string, settings: Config): AgentError {
  try {
    createLanguageModel(modelId, settings);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ code: 'model_unavailable', isRetryable: false });
    return error as AgentError;
  }
  throw new Error('createLanguageModel did not throw');
}

describe('createLanguageModel', () => {
  it('names the variable to set when a key or the base URL is missing', () => {
    expect(unavailable('anthropic:claude-sonnet-4-5', config()).message).toMatch(/Set ANTHROPIC_API_KEY/);
    expect(unavailable('openai:gpt-5', config()).message).toMatch(/Set OPENAI_API_KEY/);
    expect(unavailable('openai-compatible:llama3', config()).message).toMatch(
      /Set OPENAI_COMPATIBLE_BASE_URL/,
    );
  });

  it('refuses unknown providers and malformed ids', () => {
    const keys = config({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' });
    expect(unavailable('google:gemini', keys).message).toMatch(/anthropic, openai, openai-compatible/);
    expect(unavailable('anthropic:', keys).message).toMatch(/is not a model id/);
    expect(unavailable('gpt-5', keys).message).toMatch(/provider:model/);
  });

  it('builds each provider from the config alone', () => {
    const settings = config({
      ANTHROPIC_API_KEY: 'sk-ant-test',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    const models = ['anthropic:claude-sonnet-4-5', 'openai:gpt-5', 'openai-compatible:llama3.1:8b'].map(
      (id) => createLanguageModel(id, settings) as { provider: string; modelId: string },
    );
    expect(models.map((model) => model.modelId)).toEqual(['claude-sonnet-4-5', 'gpt-5', 'llama3.1:8b']);
    expect(models.map((model) => model.provider.split('.')[0])).toEqual([
      'anthropic',
      'openai',
      'openai-compatible',
    ]);
  });

  it('splits the id at the first colon only', () => {
    expect(parseModelId('openai-compatible:qwen2.5:7b')).toEqual({
      provider: 'openai-compatible',
      model: 'qwen2.5:7b',
    });
    expect(parseModelId('nope')).toBeNull();
  });
});
