/**
 * What a job's run is given (the worker's parts) and how it is steered (its signals, its log, how
 * it reports its end). A file of their own, so that `run.ts`, which calls `settle.ts`, and
 * `settle.ts` both use them without a circle of imports.
 */
import type { Config } from '../config/config.js';
import type { CodeHosts } from '../hosts/types.js';
import type { Logger } from '../log.js';
import type { Metrics, RunOutcome } from '../metrics/index.js';
import type { Store } from '../store/store.js';
import type { ResolveModel, RunAgent } from './agent-port.js';
import type { StopReason } from './errors.js';

/**
 * The settings a run reads: the data directory (mirrors, workspaces, askpass), what opens the
 * project's secrets (secret key, admin password, provider keys), the model's providers and prices,
 * the agent's and the job's limits, the checks and their sandbox, and the worker's own (author,
 * lease, push).
 */
export type RunConfig = Pick<
  Config,
  | 'dataDir'
  | 'secretKey'
  | 'adminPassword'
  | 'providerKeys'
  | 'providerBaseUrls'
  | 'openaiCompatibleBaseUrl'
  | 'modelPrices'
  | 'agent'
  | 'jobLimits'
  | 'checks'
  | 'worker'
>;

/** What a job's run is given: the worker's parts, built once by the server. */
export interface RunDependencies {
  config: RunConfig;
  store: Store;
  logger: Logger;
  runAgent: RunAgent;
  resolveModel: ResolveModel;
  /** The code hosts, built once by the server (`createServerCodeHosts`). */
  hosts: CodeHosts;
  workerId: string;
  /** Records pickup and run times and the model's usage; none in some tests. */
  metrics?: Metrics | undefined;
}

export interface RunControl {
  main: AbortSignal;
  publishing: AbortSignal;
  stop(reason: StopReason): void;
  log: Logger;
  /** Records how the run ended and how long it took. */
  ended(outcome: RunOutcome): void;
}
