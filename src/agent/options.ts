/**
 * What an agent run is given and what it gives back (loop.ts runs it): a file of their own, so that
 * the run's parts (session.ts, steps.ts) and the loop use them without a circle of imports.
 */
import type { LanguageModel, ModelMessage } from 'ai';
import type { EventData, EventType, NewEvent } from '../domain/events.js';
import type { Redactor } from '../domain/redact.js';
import type { Workspace } from '../git/workspace.js';
import type { ModelPrice } from './prices.js';
import type { RunUsage } from './usage.js';

/** Per-run limits (docs/configuration.md#workers-and-jobs). */
export interface AgentLimits {
  maxSteps: number;
  maxWallMs: number;
  /** Input plus output tokens over all steps of the run. */
  maxTokens: number;
  /** Distinct paths written, moved or deleted. */
  maxFilesChanged: number;
  /** USD the run may spend (at `RunAgentOptions.price`); null or absent: no limit. */
  maxCostUsd?: number | null;
}

/**
 * Receives the run's events (`message`, `tool_call`, `tool_result`, `plan`, `usage`, and `phase`
 * while waiting out a model outage). A run that fails reports no `error` event: whoever records the
 * failure does, once. A throw ends the run.
 */
export type AgentEventSink = <Type extends EventType>(type: Type, data: EventData[Type]) => Promise<void>;

/** What `runAgent` needs for one run of a job. */
/** A context repository as one run reads it (docs/context-repositories.md). */
export interface ContextSource {
  name: string;
  /** The branch fetched. */
  ref: string;
  /** The commit that branch named when the run fetched it; every read is at this commit. */
  commit: string;
  /** The mirror (a bare repository) holding `commit`. */
  gitDir: string;
}

export interface RunAgentOptions {
  model: LanguageModel;
  workspace: Workspace;
  /** Conversation so far (ModelMessage[] from earlier runs of this job), [] for a new job. */
  history: ModelMessage[];
  /** New user prompts to start this run with (the first prompt, or follow-ups). */
  prompts: string[];
  /** Follow-ups that arrived while running; called before each step, returns newly arrived prompts. */
  takePendingPrompts(): Promise<string[]>;
  limits: AgentLimits;
  signal: AbortSignal;
  onEvent: AgentEventSink;
  /**
   * Receives a finished step's events together, in order, and the conversation after the step,
   * instead of `onEvent` one by one: the worker writes both in one transaction, so that a run
   * whose process dies can be continued from there, never from ahead of what it reported.
   * Optional; same contract as `onEvent` (a throw ends the run).
   */
  onStep?: (events: NewEvent[], conversation: ModelMessage[]) => Promise<void>;
  /** Retries of a failed model call (429, 5xx). Default `DEFAULT_MAX_RETRIES`. */
  maxRetries?: number;
  /** How long to wait out a model outage before failing. Default `DEFAULT_MODEL_OUTAGE_WAIT_MS`. */
  modelOutageWaitMs?: number;
  /**
   * Blanks secrets in everything the run hands out: its events, its summary and title, its error's
   * message. Default `redactSecrets` (key shapes only); the worker adds the server's own secrets.
   */
  redact?: Redactor;
  /** Stream the model's answers (default true); false waits for each whole answer instead. */
  stream?: boolean;
  /**
   * The project's context repositories, fetched for this run: read-only sources the read tools take
   * as `repository`, each read at `commit` in the bare repository `gitDir`. Absent or empty: none.
   */
  contextRepositories?: ContextSource[];
  /** Runs the project's checks for the `run_checks` tool (the worker's); absent: no checks to run. */
  runChecks?: () => Promise<string>;
  /**
   * Runs a command line for the `run_command` tool (the worker's: offline, in the sandbox, on the
   * work so far); absent: the agent has no such tool. Returns what the model reads.
   */
  runCommand?: (command: string) => Promise<string>;
  /** Calls of `run_command` per run; default 20 (`AGENTJOBS_MAX_COMMANDS`). */
  maxCommands?: number;
  /** The model's context window in tokens (`contextWindowOf`); default `DEFAULT_CONTEXT_TOKENS`. */
  contextTokens?: number;
  /** The model's price (`priceOf`), for `usage.costUsd` and `maxCostUsd`; null or absent: unknown. */
  price?: ModelPrice | null;
  /** The most tokens the model writes in one answer (`maxOutputOf`); default: its context window. */
  maxOutputTokens?: number;
  /**
   * Called before each model call, when the price is known, with the most the call can cost (USD).
   * Resolves null when the step may go, or why it may not: the run then ends with
   * `budget_exceeded` and that message. Absent: every step goes.
   */
  reserveStep?: (ceilingUsd: number) => Promise<string | null>;
}

/** A finished run. */
export interface AgentResult {
  /** The model's final answer, for the user. */
  summary: string;
  /** The summary's first line when it is short enough for a title (`titleOf`), else null. */
  title: string | null;
  /** Full conversation to store for the next follow-up (history + this run). */
  messages: ModelMessage[];
  /** This run's totals; `usage` events carry the same running totals. */
  usage: RunUsage;
  /** `workspace.changedPaths()` at the end. */
  filesChanged: string[];
}
