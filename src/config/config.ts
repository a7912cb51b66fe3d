import path from 'node:path';
import { DEFAULT_MODEL_ID } from '../domain/job.js';
import { createRedactor, type Redactor } from '../domain/redact.js';
import { WEBHOOK_DISABLE_AFTER_MS } from '../domain/webhook.js';
import { chooseDataDir, type DataDirSource } from './data-dir.js';
import { type Environment, environmentSchema } from './schema.js';
import type { PriceOverrides } from './values.js';

export type { PriceOverrides };

/**
 * The service's configuration, read once from the environment and validated. Everything else
 * receives a `Config` and never touches `process.env`, so tests can build one from a plain object.
 */
export interface Config {
  dataDir: string;
  /** How `dataDir` was chosen (`data-dir.ts`): the admin commands refuse to start a new one unasked. */
  dataDirSource: DataDirSource;
  /** `sqlite:<file>` or a `postgres://` URL. */
  databaseUrl: string;
  host: string;
  port: number;
  publicUrl: string;
  /** `provider:model`; `DEFAULT_MODEL_ID` when nothing names one, even with no provider configured. */
  defaultModel: string;
  adminPassword: string | null;
  secretKey: string | null;
  providerKeys: { anthropic: string | null; openai: string | null; openaiCompatible: string | null };
  openaiCompatibleBaseUrl: string | null;
  /** Where the Anthropic and OpenAI clients send requests (a gateway, a proxy); null: the provider's own API. */
  providerBaseUrls: { anthropic: string | null; openai: string | null };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: readable lines on a terminal, JSON lines otherwise; or always one of them. */
  logFormat: 'auto' | 'json' | 'pretty';
  /**
   * Which proxies' X-Forwarded-For to believe (Fastify's `trustProxy`): none (false), any (true),
   * or the proxies at these addresses or CIDR ranges.
   */
  trustProxy: boolean | string[];
  limits: {
    /** Creates plus follow-ups per project per hour. */
    requestsPerHour: number;
    /** Jobs in `active` per project before a create gets 429 `too_many_active_jobs`; 0 for no cap. */
    activeJobsPerProject: number;
    maxPromptChars: number;
    bodyLimitBytes: number;
    /**
     * How long a client has to send a whole request, headers and body, from its first byte. A
     * response may last longer: an event stream stays open after its request arrived.
     */
    requestTimeoutMs: number;
    /** Open connections (event streams included) one process accepts; more are closed at once. */
    maxConnections: number;
    /** Live event streams one API key may hold open at once on one API process. */
    streamsPerKey: number;
  };
  /** How workers claim and run jobs (docs/architecture.md#the-queue-and-its-fencing). */
  worker: WorkerConfig;
  /** What one run of the agent may spend before it is stopped (docs/configuration.md#workers-and-jobs). */
  jobLimits: JobLimits;
  /** The Slack app (docs/slack.md); its tokens may also be stored sealed (`agentjobs slack connect`). */
  slack: SlackConfig;
  /** How the agent talks to its model. */
  agent: AgentConfig;
  /** Prices added to or overriding the agent's table (`agent/prices.ts`), by model id. */
  modelPrices: PriceOverrides;
  /** The `/ui` dashboard: how long a sign-in lasts. */
  dashboard: { sessionMs: number };
  /** How webhook events reach their receivers (docs/webhooks.md). */
  webhooks: WebhookConfig;
  /** `GET /metrics` (docs/operating.md#metrics). */
  metrics: MetricsConfig;
  /** Probes and stopping (docs/operating.md, "Probes, draining and stopping"). */
  lifecycle: LifecycleConfig;
  /** Checks before publishing (docs/architecture.md#the-runs-phases). */
  checks: ChecksConfig;
  /** Automations (docs/api.md): jobs that start themselves. */
  automations: AutomationConfig;
}

export interface AutomationConfig {
  /** Runs that make or continue a job, per project per UTC day; more are skipped with `limit`. */
  runsPerDay: number;
  /** Where `{{change.diff}}` is cut, with a note. */
  diffChars: number;
  /** How often the watched branches (context and content repositories) are fetched for new commits. */
  pollMs: number;
  /** How often the watched branches of local repositories are looked at, in ms. */
  localPollMs: number;
}

export interface ChecksConfig {
  /** More rounds the agent gets to fix what the checks found, after its first answer. */
  repairRounds: number;
  /** The sandbox of a project's check command: its totals, and whether to go without them. */
  sandbox: {
    /** Processes at once. */
    processes: number;
    /** Memory of all its processes together. */
    memoryBytes: number;
    /** What the checkout and `/tmp` may each hold. */
    diskBytes: number;
    /** Run commands where a limit cannot be enforced (unsafe). */
    unlimited: boolean;
  };
  /** Time the built-in checks may spend parsing one file, and all files of a run, in seconds. */
  parseSeconds: number;
  parseRunSeconds: number;
  /** What a project's setup command may leave (its environment, with the base checkout), in bytes. */
  setupCacheBytes: number;
  /** Calls of the agent's `run_command` per run. */
  maxCommands: number;
}

export interface MetricsConfig {
  /** When set, `/metrics` answers only requests with `Authorization: Bearer <token>`. */
  token: string | null;
  /**
   * The port a `worker` process serves `/metrics` on (it has no other HTTP server); null for none.
   * `serve` and `api` serve `/metrics` on their own port.
   */
  port: number | null;
}

export interface LifecycleConfig {
  /**
   * The port a `worker` answers `/healthz` and `/readyz` on (it has no other HTTP server); by
   * default the metrics port, when one is set; null for none. `serve` and `api` answer on their own.
   */
  healthPort: number | null;
  /**
   * How long a stopping `serve` or `api` keeps answering before it closes its port: `/readyz` says
   * 503 at once, reads go on, new jobs and follow-ups get 503 with Retry-After, so that a load
   * balancer has time to stop sending requests here.
   */
  drainMs: number;
}

export interface WebhookConfig {
  /** The waits before each retry of a failed delivery; after the last one it fails. */
  retryDelaysMs: number[];
  /** How long one attempt may take, from the DNS lookup to the response's first bytes. */
  timeoutMs: number;
  /** Let receivers on loopback and private addresses be saved and sent to (never link-local or metadata). */
  allowPrivate: boolean;
  /** Deliveries one process sends at once. */
  concurrency: number;
  /** An endpoint whose every attempt failed this long is disabled. */
  disableAfterMs: number;
}

export interface WorkerConfig {
  /** Jobs one worker process runs at once. */
  concurrency: number;
  /** Jobs of one project running at once, over all workers; more wait in `queued`. */
  projectConcurrency: number;
  /** How long a claim holds without a heartbeat; an expired lease returns the job to the queue. */
  leaseMs: number;
  /** How often a running job renews its lease (and notices an archive). */
  heartbeatMs: number;
  /** The fallback poll; wake-ups normally come from LISTEN/NOTIFY or the in-process event. */
  pollMs: number;
  /** On SIGTERM, how long running jobs may go on before they are stopped and handed back. */
  shutdownGraceMs: number;
  /** The bot identity of the agent's commits. */
  gitAuthorName: string;
  gitAuthorEmail: string;
}

export interface JobLimits {
  maxSteps: number;
  maxWallMs: number;
  maxTokens: number;
  maxFilesChanged: number;
  /** USD one run may spend; null for no limit (a project's daily budget may still stop it). */
  maxCostUsd: number | null;
}

export interface AgentConfig {
  /** Stream the model's answers; off for servers whose streaming is broken (answers come whole). */
  modelStreaming: boolean;
  /**
   * How long a run waits, in all, for a model whose provider keeps failing with retryable errors
   * (429, 5xx, network) before the job fails with `model_error`; 0 fails at once.
   */
  modelOutageWaitMs: number;
  /** The context window, in tokens, of models the table in `agent/windows.ts` does not know; null: its default. */
  contextTokens: number | null;
}

/** The Slack app's settings from the environment; a token not set here may be stored sealed in the database. */
export interface SlackConfig {
  signingSecret: string | null;
  botToken: string | null;
  /** An app-level token: events come over Socket Mode. */
  appToken: string | null;
  /** Where Slack's Web API is, with a trailing slash. */
  apiUrl: string;
}

/** A configuration problem, phrased as one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the environment. Throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const e = parseEnvironment(env);
  const { dir: dataDir, source: dataDirSource } = chooseDataDir(e.AGENTJOBS_DATA_DIR, cwd);
  const publicHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  const config: Config = {
    dataDir,
    dataDirSource,
    databaseUrl: e.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
    host: e.HOST,
    port: e.PORT,
    publicUrl: (e.AGENTJOBS_PUBLIC_URL ?? `http://${publicHost}:${e.PORT}`).replace(/\/+$/, ''),
    defaultModel: e.AGENTJOBS_MODEL ?? defaultModelFor(e),
    adminPassword: e.AGENTJOBS_ADMIN_PASSWORD ?? null,
    secretKey: e.AGENTJOBS_SECRET_KEY ?? null,
    providerKeys: {
      anthropic: e.ANTHROPIC_API_KEY ?? null,
      openai: e.OPENAI_API_KEY ?? null,
      openaiCompatible: e.OPENAI_COMPATIBLE_API_KEY ?? null,
    },
    openaiCompatibleBaseUrl: e.OPENAI_COMPATIBLE_BASE_URL ?? null,
    providerBaseUrls: { anthropic: e.ANTHROPIC_BASE_URL ?? null, openai: e.OPENAI_BASE_URL ?? null },
    logLevel: e.LOG_LEVEL,
    logFormat: e.AGENTJOBS_LOG_FORMAT,
    trustProxy: e.AGENTJOBS_TRUST_PROXY,
    limits: {
      requestsPerHour: e.AGENTJOBS_RATE_LIMIT_PER_HOUR,
      activeJobsPerProject: e.AGENTJOBS_MAX_ACTIVE_JOBS,
      maxPromptChars: e.AGENTJOBS_MAX_PROMPT_CHARS,
      bodyLimitBytes: e.AGENTJOBS_BODY_LIMIT,
      requestTimeoutMs: e.AGENTJOBS_REQUEST_TIMEOUT_SECONDS * 1000,
      maxConnections: e.AGENTJOBS_MAX_CONNECTIONS,
      streamsPerKey: e.AGENTJOBS_MAX_STREAMS_PER_KEY,
    },
    ...runSettings(e),
    dashboard: { sessionMs: e.AGENTJOBS_SESSION_HOURS * 3_600_000 },
    webhooks: {
      retryDelaysMs: e.AGENTJOBS_WEBHOOK_RETRY_DELAYS,
      timeoutMs: e.AGENTJOBS_WEBHOOK_TIMEOUT,
      allowPrivate: e.AGENTJOBS_WEBHOOK_ALLOW_PRIVATE,
      concurrency: e.AGENTJOBS_WEBHOOK_CONCURRENCY,
      disableAfterMs: WEBHOOK_DISABLE_AFTER_MS,
    },
    automations: {
      runsPerDay: e.AGENTJOBS_AUTOMATION_RUNS_PER_DAY,
      diffChars: e.AGENTJOBS_TRIGGER_DIFF_CHARS,
      pollMs: e.AGENTJOBS_REPOSITORY_POLL_SECONDS * 1000,
      localPollMs: e.AGENTJOBS_LOCAL_REPOSITORY_POLL_SECONDS * 1000,
    },
    slack: slackConfig(e),
    metrics: { token: e.AGENTJOBS_METRICS_TOKEN ?? null, port: e.AGENTJOBS_METRICS_PORT ?? null },
    lifecycle: {
      healthPort: e.AGENTJOBS_HEALTH_PORT ?? e.AGENTJOBS_METRICS_PORT ?? null,
      drainMs: e.AGENTJOBS_DRAIN_SECONDS * 1000,
    },
    checks: checksSettings(e),
  };
  return deepFreeze(config);
}

/** Reads and validates the environment; throws `ConfigError` naming the first bad variable. */
function parseEnvironment(env: NodeJS.ProcessEnv): Environment {
  const parsed = environmentSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const variable = String(issue?.path[0] ?? 'environment');
  const value = env[variable];
  // Never echo a secret's value back; for the rest the value helps, its start is enough.
  const shown =
    value === undefined || /KEY|PASSWORD|SECRET|_TOKEN$/.test(variable)
      ? ''
      : ` (got "${value.length > 100 ? `${value.slice(0, 100)}…` : value}")`;
  throw new ConfigError(`${variable}: ${issue?.message ?? 'invalid'}${shown}`);
}

/** How workers claim and run jobs, and what one run may spend. */
function runSettings(e: Environment): Pick<Config, 'worker' | 'jobLimits' | 'modelPrices' | 'agent'> {
  return {
    worker: {
      concurrency: e.AGENTJOBS_WORKER_CONCURRENCY,
      projectConcurrency: e.AGENTJOBS_PROJECT_CONCURRENCY,
      leaseMs: e.AGENTJOBS_LEASE_SECONDS * 1000,
      // Often enough that an archive stops a run within seconds, and a lease survives two missed beats.
      heartbeatMs: Math.min(2000, Math.floor((e.AGENTJOBS_LEASE_SECONDS * 1000) / 3)),
      pollMs: e.AGENTJOBS_POLL_SECONDS * 1000,
      shutdownGraceMs: e.AGENTJOBS_SHUTDOWN_GRACE_SECONDS * 1000,
      gitAuthorName: e.AGENTJOBS_GIT_AUTHOR_NAME,
      gitAuthorEmail: e.AGENTJOBS_GIT_AUTHOR_EMAIL,
    },
    jobLimits: {
      maxSteps: e.AGENTJOBS_MAX_STEPS,
      maxWallMs: e.AGENTJOBS_MAX_JOB_MINUTES * 60_000,
      maxTokens: e.AGENTJOBS_MAX_TOKENS,
      maxFilesChanged: e.AGENTJOBS_MAX_FILES_CHANGED,
      maxCostUsd: e.AGENTJOBS_MAX_JOB_COST_USD ?? null,
    },
    modelPrices: e.AGENTJOBS_MODEL_PRICES ?? {},
    agent: {
      modelStreaming: e.AGENTJOBS_MODEL_STREAMING,
      modelOutageWaitMs: e.AGENTJOBS_MODEL_OUTAGE_SECONDS * 1000,
      contextTokens: e.AGENTJOBS_CONTEXT_TOKENS ?? null,
    },
  };
}

/** Checks before publishing. */
function checksSettings(e: Environment): ChecksConfig {
  return {
    repairRounds: e.AGENTJOBS_CHECK_REPAIR_ROUNDS,
    sandbox: {
      processes: e.AGENTJOBS_CHECK_PROCESSES,
      memoryBytes: e.AGENTJOBS_CHECK_MEMORY_MB * 1024 * 1024,
      diskBytes: e.AGENTJOBS_CHECK_DISK_MB * 1024 * 1024,
      unlimited: e.AGENTJOBS_SANDBOX_UNLIMITED,
    },
    parseSeconds: e.AGENTJOBS_CHECK_PARSE_SECONDS,
    parseRunSeconds: e.AGENTJOBS_CHECK_PARSE_RUN_SECONDS,
    setupCacheBytes: (e.AGENTJOBS_SETUP_CACHE_MB ?? e.AGENTJOBS_CHECK_DISK_MB) * 1024 * 1024,
    maxCommands: e.AGENTJOBS_MAX_COMMANDS,
  };
}

/**
 * The redactor of what a run hands out (`domain/redact.ts`): key shapes, and every setting that is
 * a secret the run's process holds (the provider keys, the server's secret key, the admin password).
 */
export function redactorFor(config: Pick<Config, 'providerKeys' | 'secretKey' | 'adminPassword'>): Redactor {
  const { anthropic, openai, openaiCompatible } = config.providerKeys;
  return createRedactor([anthropic, openai, openaiCompatible, config.secretKey, config.adminPassword]);
}

function slackConfig(e: Environment): SlackConfig {
  return {
    signingSecret: e.AGENTJOBS_SLACK_SIGNING_SECRET ?? null,
    botToken: e.AGENTJOBS_SLACK_BOT_TOKEN ?? null,
    appToken: e.AGENTJOBS_SLACK_APP_TOKEN ?? null,
    apiUrl: e.AGENTJOBS_SLACK_API_URL.replace(/\/*$/, '/'),
  };
}

/** With no AGENTJOBS_MODEL, the first provider whose key is present decides; with none, the documented default. */
function defaultModelFor(e: Environment): string {
  if (e.ANTHROPIC_API_KEY) return DEFAULT_MODEL_ID;
  if (e.OPENAI_API_KEY) return 'openai:gpt-5';
  return DEFAULT_MODEL_ID;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
