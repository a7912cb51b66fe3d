/** The agent (DESIGN §5): the tool loop, its tools, the system prompt and the model registry. */
export { AgentError, type AgentErrorCode, type AgentPartial, ToolError } from './errors.js';
export {
  type AgentEventSink,
  type AgentLimits,
  type AgentResult,
  DEFAULT_MAX_RETRIES,
  type RunAgentOptions,
  runAgent,
} from './loop.js';
export { PROVIDERS, type Provider, parseModelId, resolveModel } from './models.js';
export { BASE_SYSTEM_PROMPT, buildSystemPrompt } from './prompt.js';
export { type AgentTools, createTools, filesChangedGuard, type PlanItem, type ToolHooks } from './tools.js';
