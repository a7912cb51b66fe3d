import path from 'node:path';
import { z } from 'zod';

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
  /** `provider:model`, or null when no model is configured at all. */
  defaultModel: string | null;
  adminPassword: string | null;
  secretKey: string | null;
  providerKeys: { anthropic: string | null; openai: string | null; openaiCompatible: string | null };
  openaiCompatibleBaseUrl: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  trustProxy: boolean;
  limits: {
    /** Creates plus follow-ups per project per hour. */
    requestsPerHour: number;
    /** Jobs in `active` per project before a create gets 429 `too_many_active_jobs`; 0 for no cap. */
    activeJobsPerProject: number;
    maxPromptChars: number;
    bodyLimitBytes: number;
  };
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

const modelId = z
  .string()
  .regex(
    /^(anthropic|openai|openai-compatible):\S+$/,
    'must look like provider:model, e.g. anthropic:claude-sonnet-4-5',
  );

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value));

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
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AGENTJOBS_TRUST_PROXY: boolean.default(false),
  AGENTJOBS_RATE_LIMIT_PER_HOUR: integer(1, 10_000_000).default(100),
  AGENTJOBS_MAX_ACTIVE_JOBS: integer(0, 1_000_000).default(100),
  AGENTJOBS_MAX_PROMPT_CHARS: integer(1, 1_000_000).default(32_000),
  AGENTJOBS_BODY_LIMIT: integer(1024, 100 * 1024 * 1024).default(64 * 1024),
});

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
    const shown = value === undefined || /KEY|PASSWORD|SECRET/.test(variable) ? '' : ` (got "${value}")`;
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
    logLevel: e.LOG_LEVEL,
    trustProxy: e.AGENTJOBS_TRUST_PROXY,
    limits: {
      requestsPerHour: e.AGENTJOBS_RATE_LIMIT_PER_HOUR,
      activeJobsPerProject: e.AGENTJOBS_MAX_ACTIVE_JOBS,
      maxPromptChars: e.AGENTJOBS_MAX_PROMPT_CHARS,
      bodyLimitBytes: e.AGENTJOBS_BODY_LIMIT,
    },
  };
  return deepFreeze(config);
}

/** With no AGENTJOBS_MODEL, the first provider whose key is present decides. */
function defaultModelFor(e: z.infer<typeof schema>): string | null {
  if (e.ANTHROPIC_API_KEY) return 'anthropic:claude-sonnet-4-5';
  if (e.OPENAI_API_KEY) return 'openai:gpt-5';
  return null;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
