/**
 * The worker's view of the agent (`src/agent/`). The worker takes the agent as a dependency —
 * `runAgent` and `createLanguageModel` — so the server passes the real one and tests a fake that edits
 * the workspace and returns a result.
 */
import { AgentError, type runAgent } from '../agent/loop.js';

export { REAL_MODEL_HINT } from '../agent/demo-change.js';
export { type ModelPrice, priceOf } from '../agent/prices.js';
export { contextWindowOf, maxOutputOf } from '../agent/windows.js';

import type { createLanguageModel } from '../agent/models.js';

export {
  AgentError,
  type AgentErrorCode,
  type AgentEventSink,
  type AgentLimits,
  type AgentPartial,
  type AgentResult,
  type ContextSource,
  type RunAgentOptions,
} from '../agent/loop.js';

/** Runs the agent once for a job; `src/agent/loop.ts` in production. */
export type RunAgent = typeof runAgent;
/** Throws `AgentError('model_unavailable')` when the model cannot be used; `src/agent/models.ts` in production. */
export type ResolveModel = typeof createLanguageModel;

export const isAgentError = (error: unknown): error is AgentError => error instanceof AgentError;
