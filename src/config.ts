import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_MODEL_ID } from './domain/job.js';
import { WEBHOOK_DISABLE_AFTER_MS } from './domain/webhook.js';

/**
 * The service's configuration, read once from the environment and validated. Everything else
 * receives a `Config` and never touches `process.env`, so tests can build one from a plain object.
 */
export interface Config {
  dataDir: string;
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
  /** How workers claim and run jobs (DESIGN section 4). */
  worker: WorkerConfig;
  /** What one run of the agent may spend before it is stopped (DESIGN section 4, limits per job). */
  jobLimits: JobLimits;
  /** How the agent talks to its model. */
  agent: AgentConfig;
  /** Prices added to or overriding the agent's table (`agent/prices.ts`), by model id. */
  modelPrices: PriceOverrides;
  /** The `/ui` dashboard: how long a sign-in lasts. */
  dashboard: { sessionMs: number };
  /** How webhook events reach their receivers (DESIGN section 3, webhooks). */
  webhooks: WebhookConfig;
  /** `GET /metrics` (DESIGN section 3, "Metrics"). */
  metrics: MetricsConfig;
  /** Checks before publishing (DESIGN section 5). */
  checks: ChecksConfig;
}

export interface ChecksConfig {
  /** More rounds the agent gets to fix what the checks found, after its first answer. */
  repairRounds: number;
  /** Writable memory per process of a project's check command, in MiB. */
  commandMemoryMb: number;
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

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** A proxy address or CIDR range: 10.0.0.1, 10.0.0.0/8, ::1, fd00::/8. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * `true`/`false`, or the proxies' addresses. With `true`, a client that reaches the service
 * without the proxy can name its own address in X-Forwarded-For; a list believes only those
 * proxies. (Fastify 5 no longer honours a hop count: it cannot check the nearest peer.)
 */
const trustProxy = z.string().transform((value, context) => {
  const text = value.trim();
  if (/^(true|yes|1)$/i.test(text)) return true;
  if (/^(false|no|0|)$/i.test(text)) return false;
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length > 0 && entries.every(isAddressOrRange)) return entries;
  context.addIssue({
    code: 'custom',
    message: 'must be true, false, or the proxies’ addresses or CIDR ranges, comma-separated',
  });
  return z.NEVER;
});

const modelId = z
  .string()
  .regex(
    /^(anthropic|openai|openai-compatible):\S+$/,
    'must look like provider:model, e.g. anthropic:claude-sonnet-4-5',
  );

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `5s`, `5m`, `2h`, `1d` in milliseconds, or null when it is not one. */
function parseDuration(text: string): number | null {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  return match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0) : null;
}

const duration = (maxMs: number) =>
  z.string().transform((text, context) => {
    const ms = parseDuration(text);
    if (ms !== null && ms > 0 && ms <= maxMs) return ms;
    context.addIssue({ code: 'custom', message: 'must be a duration such as 500ms, 10s or 1m, above 0' });
    return z.NEVER;
  });

const durationList = z.string().transform((text, context) => {
  const delays = text.split(',').map(parseDuration);
  if (delays.length <= 20 && delays.every((ms) => ms !== null)) return delays as number[];
  context.addIssue({ code: 'custom', message: 'must be durations separated by commas, e.g. 5s,5m,30m,2h' });
  return z.NEVER;
});

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value));

const dollars = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'must be an amount in US dollars, e.g. 2.50')
  .transform(Number)
  .pipe(z.number().positive('must be more than 0'));

const perMillion = z.number().min(0);
/** `{"provider:model": {"input": 3, "output": 15, "cachedInput"?: 0.3, "cacheWrite"?: 3.75}}`, USD per million tokens. */
const modelPrices = z.string().transform((text, context) => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    context.addIssue({ code: 'custom', message: 'must be JSON' });
    return z.NEVER;
  }
  const parsed = z
    .record(
      modelId,
      z.strictObject({
        input: perMillion,
        output: perMillion,
        cachedInput: perMillion.optional(),
        cacheWrite: perMillion.optional(),
      }),
    )
    .safeParse(value);
  if (parsed.success) return parsed.data as PriceOverrides;
  const issue = parsed.error.issues[0];
  context.addIssue({
    code: 'custom',
    message: `must map model ids to { input, output, cachedInput?, cacheWrite? } in USD per million tokens (${issue?.path.join('.')}: ${issue?.message})`,
  });
  return z.NEVER;
});

const schema = z.object({
  AGENTJOBS_DATA_DIR: z.string().min(1).default('./.agentjobs'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^(postgres(ql)?:\/\/|sqlite:)/, 'must start with postgres:// or sqlite:')
      .optional(),
  ),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: integer(0, 65535).default(8080),
  AGENTJOBS_PUBLIC_URL: optionalString.pipe(httpUrl.optional()),
  AGENTJOBS_MODEL: optionalString.pipe(modelId.optional()),
  AGENTJOBS_ADMIN_PASSWORD: optionalString.pipe(
    z.string().min(8, 'must be at least 8 characters').optional(),
  ),
  AGENTJOBS_SECRET_KEY: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  ANTHROPIC_API_KEY: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_COMPATIBLE_BASE_URL: optionalString.pipe(httpUrl.optional()),
  OPENAI_COMPATIBLE_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalString.pipe(httpUrl.optional()),
  OPENAI_BASE_URL: optionalString.pipe(httpUrl.optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AGENTJOBS_TRUST_PROXY: trustProxy.default(false),
  AGENTJOBS_RATE_LIMIT_PER_HOUR: integer(1, 10_000_000).default(100),
  AGENTJOBS_MAX_ACTIVE_JOBS: integer(0, 1_000_000).default(100),
  AGENTJOBS_MAX_PROMPT_CHARS: integer(1, 1_000_000).default(32_000),
  AGENTJOBS_BODY_LIMIT: integer(1024, 100 * 1024 * 1024).default(64 * 1024),
  AGENTJOBS_REQUEST_TIMEOUT_SECONDS: integer(1, 3600).default(30),
  AGENTJOBS_MAX_CONNECTIONS: integer(1, 1_000_000).default(1000),
  AGENTJOBS_MAX_STREAMS_PER_KEY: integer(1, 100_000).default(20),
  AGENTJOBS_WORKER_CONCURRENCY: integer(1, 1000).default(4),
  AGENTJOBS_PROJECT_CONCURRENCY: integer(1, 1000).default(2),
  AGENTJOBS_LEASE_SECONDS: integer(5, 86_400).default(30),
  AGENTJOBS_POLL_SECONDS: integer(1, 3600).default(5),
  AGENTJOBS_SHUTDOWN_GRACE_SECONDS: integer(0, 86_400).default(30),
  AGENTJOBS_GIT_AUTHOR_NAME: z
    .string()
    .regex(/^[^<>\r\n]+$/, 'must be a name without <, > or line breaks')
    .default('agentjobs'),
  AGENTJOBS_GIT_AUTHOR_EMAIL: z
    .string()
    .regex(/^[^\s<>@]+@[^\s<>@]+$/, 'must look like an email address')
    .default('agentjobs@localhost'),
  AGENTJOBS_MAX_STEPS: integer(1, 10_000).default(50),
  AGENTJOBS_MAX_JOB_MINUTES: integer(1, 24 * 60).default(20),
  AGENTJOBS_MAX_TOKENS: integer(1000, 1_000_000_000).default(2_000_000),
  AGENTJOBS_MAX_FILES_CHANGED: integer(1, 1_000_000).default(200),
  AGENTJOBS_MODEL_STREAMING: boolean.default(true),
  AGENTJOBS_MODEL_OUTAGE_SECONDS: integer(0, 86_400).default(600),
  AGENTJOBS_CONTEXT_TOKENS: optionalString.pipe(integer(1000, 100_000_000).optional()),
  AGENTJOBS_MAX_JOB_COST_USD: optionalString.pipe(dollars.optional()),
  AGENTJOBS_MODEL_PRICES: optionalString.pipe(modelPrices.optional()),
  AGENTJOBS_SESSION_HOURS: integer(1, 24 * 90).default(12),
  AGENTJOBS_WEBHOOK_RETRY_DELAYS: durationList.default(durationList.parse('5s,5m,30m,2h,5h,10h,10h')),
  AGENTJOBS_WEBHOOK_TIMEOUT: duration(120_000).default(10_000),
  AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: boolean.default(false),
  AGENTJOBS_WEBHOOK_CONCURRENCY: integer(1, 1000).default(16),
  AGENTJOBS_METRICS_TOKEN: optionalString.pipe(
    z.string().min(16, 'must be at least 16 characters').regex(/^\S+$/, 'must not contain spaces').optional(),
  ),
  AGENTJOBS_METRICS_PORT: optionalString.pipe(integer(0, 65535).optional()),
  AGENTJOBS_CHECK_REPAIR_ROUNDS: integer(0, 20).default(2),
  AGENTJOBS_CHECK_MEMORY_MB: integer(64, 1_048_576).default(2048),
});

/**
 * Model prices as `AGENTJOBS_MODEL_PRICES` gives them, USD per million tokens by model id; the
 * cache prices default to the input price (`agent/prices.ts`).
 */
export type PriceOverrides = Record<
  string,
  { input: number; output: number; cachedInput?: number; cacheWrite?: number }
>;

/** A configuration problem, phrased as one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the environment. Throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    const value = env[variable];
    // Never echo a secret's value back; for the rest the value helps.
    const shown =
      value === undefined || /KEY|PASSWORD|SECRET|_TOKEN$/.test(variable) ? '' : ` (got "${value}")`;
    throw new ConfigError(`${variable}: ${issue?.message ?? 'invalid'}${shown}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.AGENTJOBS_DATA_DIR);
  const publicHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  const config: Config = {
    dataDir,
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
    dashboard: { sessionMs: e.AGENTJOBS_SESSION_HOURS * 3_600_000 },
    webhooks: {
      retryDelaysMs: e.AGENTJOBS_WEBHOOK_RETRY_DELAYS,
      timeoutMs: e.AGENTJOBS_WEBHOOK_TIMEOUT,
      allowPrivate: e.AGENTJOBS_WEBHOOK_ALLOW_PRIVATE,
      concurrency: e.AGENTJOBS_WEBHOOK_CONCURRENCY,
      disableAfterMs: WEBHOOK_DISABLE_AFTER_MS,
    },
    metrics: { token: e.AGENTJOBS_METRICS_TOKEN ?? null, port: e.AGENTJOBS_METRICS_PORT ?? null },
    checks: {
      repairRounds: e.AGENTJOBS_CHECK_REPAIR_ROUNDS,
      commandMemoryMb: e.AGENTJOBS_CHECK_MEMORY_MB,
    },
  };
  return deepFreeze(config);
}

/** With no AGENTJOBS_MODEL, the first provider whose key is present decides; with none, the documented default. */
function defaultModelFor(e: z.infer<typeof schema>): string {
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
