import { z } from 'zod';
import { slackSettings } from './schema-slack.js';
import { documented } from './setting-doc.js';
import {
  boolean,
  dollars,
  duration,
  durationList,
  httpUrl,
  integer,
  modelId,
  modelPrices,
  optionalString,
  trustProxy,
} from './values.js';

/** The server's environment: every variable the service reads, its parser and its documentation. */
export const environmentSchema = z.object({
  AGENTJOBS_DATA_DIR: documented(optionalString, {
    group: 'server',
    description:
      'The data directory: SQLite database, git mirrors, cached environments, the generated secret key. See [the data directory](operating.md#the-data-directory).',
    shownDefault: 'the nearest `.agentjobs` folder, else a new `./.agentjobs`',
  }),
  DATABASE_URL: documented(
    optionalString.pipe(
      z
        .string()
        .regex(/^(postgres(ql)?:\/\/|sqlite:)/, 'must start with postgres:// or sqlite:')
        .optional(),
    ),
    {
      group: 'server',
      description: '`postgres://…` to share one PostgreSQL among many processes, or `sqlite:<file>`.',
      shownDefault: 'SQLite in the data directory',
    },
  ),
  HOST: documented(z.string().min(1).default('127.0.0.1'), {
    group: 'server',
    description: 'The address the HTTP server listens on (`0.0.0.0` for every interface, as in a container).',
  }),
  PORT: documented(integer(0, 65535).default(8080), {
    group: 'server',
    description: 'The HTTP port (`0` picks a free one).',
  }),
  AGENTJOBS_PUBLIC_URL: documented(optionalString.pipe(httpUrl.optional()), {
    group: 'server',
    description:
      'The address people reach the service at, used in links (pull requests, replies, `prLink`). Give every process the same.',
    shownDefault: '`http://HOST:PORT`',
  }),
  AGENTJOBS_MODEL: documented(optionalString.pipe(modelId.optional()), {
    group: 'models',
    description:
      'The default model, `provider:model`; `demo` for the built-in demo model (no key, no cost, one small labelled change per prompt).',
    shownDefault: 'from the provider key present; else `anthropic:claude-sonnet-4-5`',
  }),
  AGENTJOBS_ADMIN_PASSWORD: documented(
    optionalString.pipe(z.string().min(8, 'must be at least 8 characters').optional()),
    {
      group: 'server',
      description: "The dashboard's admin password (at least 8 characters).",
      shownDefault: 'generated and printed once',
    },
  ),
  AGENTJOBS_SECRET_KEY: documented(
    optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    {
      group: 'server',
      description:
        "Encrypts code-host tokens at rest and signs the dashboard's form tokens (at least 32 characters). Give every process the same one.",
      shownDefault: 'generated into the data directory',
    },
  ),
  ANTHROPIC_API_KEY: documented(optionalString, { group: 'models', description: 'Anthropic API key.' }),
  OPENAI_API_KEY: documented(optionalString, { group: 'models', description: 'OpenAI API key.' }),
  OPENAI_COMPATIBLE_BASE_URL: documented(optionalString.pipe(httpUrl.optional()), {
    group: 'models',
    description:
      'An OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio), e.g. `http://127.0.0.1:11434/v1`.',
  }),
  OPENAI_COMPATIBLE_API_KEY: documented(optionalString, {
    group: 'models',
    description: 'The key of that server, when it wants one.',
  }),
  ANTHROPIC_BASE_URL: documented(optionalString.pipe(httpUrl.optional()), {
    group: 'models',
    description: 'Send Anthropic requests through a gateway or proxy.',
    shownDefault: "Anthropic's own API",
  }),
  OPENAI_BASE_URL: documented(optionalString.pipe(httpUrl.optional()), {
    group: 'models',
    description: 'Send OpenAI requests through a gateway or proxy.',
    shownDefault: "OpenAI's own API",
  }),
  LOG_LEVEL: documented(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    {
      group: 'observability',
      description: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.',
    },
  ),
  AGENTJOBS_LOG_FORMAT: documented(z.enum(['auto', 'json', 'pretty']).default('auto'), {
    group: 'observability',
    description:
      '`auto`: readable lines (in colour) on a terminal, JSON lines otherwise; `pretty` or `json` to choose.',
  }),
  AGENTJOBS_TRUST_PROXY: documented(trustProxy.default(false), {
    group: 'server',
    description:
      'Behind a proxy: its addresses or CIDR ranges, comma-separated (then `X-Forwarded-For` from those alone is believed), or `true` to believe any.',
  }),
  AGENTJOBS_RATE_LIMIT_PER_HOUR: documented(integer(1, 10_000_000).default(100), {
    group: 'limits',
    description: "Creates plus follow-ups per project per hour (automations' runs do not count).",
  }),
  AGENTJOBS_MAX_ACTIVE_JOBS: documented(integer(0, 1_000_000).default(100), {
    group: 'limits',
    description: 'Active jobs per project before creates get 429 `too_many_active_jobs` (`0`: no cap).',
  }),
  AGENTJOBS_MAX_PROMPT_CHARS: documented(integer(1, 1_000_000).default(32_000), {
    group: 'limits',
    description: 'The longest prompt, in characters.',
  }),
  AGENTJOBS_BODY_LIMIT: documented(integer(1024, 100 * 1024 * 1024).default(64 * 1024), {
    group: 'limits',
    description: 'The largest request body, in bytes.',
  }),
  AGENTJOBS_REQUEST_TIMEOUT_SECONDS: documented(integer(1, 3600).default(30), {
    group: 'limits',
    description:
      'Time a client has to send a whole request, headers and body; a slower one gets 408 and is disconnected (event streams stay open: they have no body).',
  }),
  AGENTJOBS_MAX_CONNECTIONS: documented(integer(1, 1_000_000).default(1000), {
    group: 'limits',
    description:
      'Open connections per API process, event streams included; further ones are closed as they arrive.',
  }),
  AGENTJOBS_MAX_STREAMS_PER_KEY: documented(integer(1, 100_000).default(20), {
    group: 'limits',
    description: 'Live event streams one API key may hold open at once, per API process; one more gets 429.',
  }),
  AGENTJOBS_AUTOMATION_RUNS_PER_DAY: documented(integer(0, 10_000_000).default(500), {
    group: 'automations',
    description:
      'Automation runs that make or continue a job, per project per UTC day; more are skipped with `limit`.',
  }),
  AGENTJOBS_TRIGGER_DIFF_CHARS: documented(integer(1000, 10_000_000).default(60_000), {
    group: 'automations',
    description: "Where an automation prompt's `{{change.diff}}` is cut, with a note.",
  }),
  AGENTJOBS_REPOSITORY_POLL_SECONDS: documented(integer(1, 86_400).default(300), {
    group: 'automations',
    description:
      'How often the branches that `code_change` and `content_change` automations watch are fetched for new commits: the fallback for a missed code-host webhook, and how a local repository is heard from.',
  }),
  AGENTJOBS_LOCAL_REPOSITORY_POLL_SECONDS: documented(integer(1, 86_400).default(3), {
    group: 'automations',
    description:
      'How often the watched branches of local repositories (a folder on this machine, which sends no webhooks) are looked at for new commits: reading a local repository costs next to nothing, so a commit is heard within seconds.',
  }),
  AGENTJOBS_WORKER_CONCURRENCY: documented(integer(1, 1000).default(4), {
    group: 'worker',
    description: 'Jobs one worker process runs at once.',
  }),
  AGENTJOBS_PROJECT_CONCURRENCY: documented(integer(1, 1000).default(2), {
    group: 'worker',
    description: 'Jobs of one project running at once over all workers; more wait in `queued`.',
  }),
  AGENTJOBS_LEASE_SECONDS: documented(integer(5, 86_400).default(30), {
    group: 'worker',
    description: 'How long a claimed job survives a silent worker before another takes it.',
  }),
  AGENTJOBS_POLL_SECONDS: documented(integer(1, 3600).default(5), {
    group: 'worker',
    description: 'The fallback poll of the queue (wake-ups are immediate otherwise).',
  }),
  AGENTJOBS_SHUTDOWN_GRACE_SECONDS: documented(integer(0, 86_400).default(30), {
    group: 'worker',
    description:
      'On SIGTERM or Ctrl-C, how long running jobs may go on before they are handed back to the queue (a second Ctrl-C stops at once).',
  }),
  AGENTJOBS_GIT_AUTHOR_NAME: documented(
    z
      .string()
      .regex(/^[^<>\r\n]+$/, 'must be a name without <, > or line breaks')
      .default('agentjobs'),
    { group: 'worker', description: "The name of the bot identity of the agent's commits." },
  ),
  AGENTJOBS_GIT_AUTHOR_EMAIL: documented(
    z
      .string()
      .regex(/^[^\s<>@]+@[^\s<>@]+$/, 'must look like an email address')
      .default('agentjobs@localhost'),
    { group: 'worker', description: "The email of the bot identity of the agent's commits." },
  ),
  AGENTJOBS_MAX_STEPS: documented(integer(1, 10_000).default(50), {
    group: 'worker',
    description: 'Model steps per run.',
  }),
  AGENTJOBS_MAX_JOB_MINUTES: documented(integer(1, 24 * 60).default(20), {
    group: 'worker',
    description: 'Wall time per run, in minutes.',
  }),
  AGENTJOBS_MAX_TOKENS: documented(integer(1000, 1_000_000_000).default(2_000_000), {
    group: 'worker',
    description: 'Input plus output tokens per run.',
  }),
  AGENTJOBS_MAX_FILES_CHANGED: documented(integer(1, 1_000_000).default(200), {
    group: 'worker',
    description: 'Files one job may change.',
  }),
  AGENTJOBS_MODEL_STREAMING: documented(boolean.default(true), {
    group: 'models',
    description: 'Stream model responses; `false` for servers whose streaming is broken.',
  }),
  AGENTJOBS_MODEL_OUTAGE_SECONDS: documented(integer(0, 86_400).default(600), {
    group: 'models',
    description:
      'How long a run waits, in all, for a provider that keeps answering 429, 5xx or not at all (with backoff) before the job fails with `model_error`; `0` fails at once.',
  }),
  AGENTJOBS_CONTEXT_TOKENS: documented(optionalString.pipe(integer(1000, 100_000_000).optional()), {
    group: 'models',
    description:
      'The context window of models the service does not know (local models: set it to the server’s context size).',
    shownDefault: '`128000`',
  }),
  AGENTJOBS_MAX_JOB_COST_USD: documented(optionalString.pipe(dollars.optional()), {
    group: 'models',
    description: 'What one run may spend, in USD; past it the run stops with `budget_exceeded`.',
    shownDefault: 'no limit',
  }),
  AGENTJOBS_MODEL_PRICES: documented(optionalString.pipe(modelPrices.optional()), {
    group: 'models',
    description:
      'JSON prices added to or overriding the built-in table, by model id; see [costs and budgets](costs.md).',
  }),
  AGENTJOBS_SESSION_HOURS: documented(integer(1, 24 * 90).default(12), {
    group: 'server',
    description: 'How long a dashboard sign-in lasts, in hours.',
  }),
  AGENTJOBS_WEBHOOK_RETRY_DELAYS: documented(
    durationList.default(durationList.parse('5s,5m,30m,2h,5h,10h,10h')),
    {
      group: 'webhooks',
      description:
        'Waits before each retry of a failed webhook delivery (±20 % jitter); after the last it fails.',
      shownDefault: '`5s,5m,30m,2h,5h,10h,10h`',
    },
  ),
  AGENTJOBS_WEBHOOK_TIMEOUT: documented(duration(120_000).default(10_000), {
    group: 'webhooks',
    description: 'How long one delivery attempt may take, DNS lookup to response.',
    shownDefault: '`10s`',
  }),
  AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: documented(boolean.default(false), {
    group: 'webhooks',
    description: 'Let webhook endpoints be on loopback and private addresses (never link-local or metadata).',
  }),
  AGENTJOBS_WEBHOOK_CONCURRENCY: documented(integer(1, 1000).default(16), {
    group: 'webhooks',
    description: 'Webhook deliveries one process sends at once.',
  }),
  AGENTJOBS_METRICS_TOKEN: documented(
    optionalString.pipe(
      z
        .string()
        .min(16, 'must be at least 16 characters')
        .regex(/^\S+$/, 'must not contain spaces')
        .optional(),
    ),
    {
      group: 'observability',
      description: 'When set, `/metrics` needs `Authorization: Bearer <token>` (at least 16 characters).',
    },
  ),
  AGENTJOBS_METRICS_PORT: documented(optionalString.pipe(integer(0, 65535).optional()), {
    group: 'observability',
    description:
      'The port a `worker` process (which has no API) serves `/metrics` on; `serve` and `api` serve it on `PORT`.',
  }),
  AGENTJOBS_HEALTH_PORT: documented(optionalString.pipe(integer(0, 65535).optional()), {
    group: 'observability',
    description:
      'The port a `worker` serves its probes on (`/healthz`, which fails when its heartbeat stalls, and `/readyz`); `serve` and `api` answer them on `PORT`.',
    shownDefault: '`AGENTJOBS_METRICS_PORT`',
  }),
  AGENTJOBS_DRAIN_SECONDS: documented(integer(0, 3600).default(5), {
    group: 'worker',
    description:
      'On SIGTERM or the first Ctrl-C while jobs run, how long the HTTP server keeps answering with `/readyz` at 503 (reads served, new jobs and follow-ups 503 with `Retry-After`) before it closes: long enough for a load balancer to drop the process.',
  }),
  AGENTJOBS_CHECK_REPAIR_ROUNDS: documented(integer(0, 20).default(2), {
    group: 'checks',
    description:
      'More rounds the agent gets to fix what the checks found (within what is left of the run’s limits).',
  }),
  AGENTJOBS_CHECK_MEMORY_MB: documented(integer(64, 1_048_576).default(2048), {
    group: 'checks',
    description:
      "Memory of a project's command in the sandbox, all its processes together (what it writes included).",
  }),
  AGENTJOBS_CHECK_PROCESSES: documented(integer(16, 1_000_000).default(256), {
    group: 'checks',
    description: "Processes a project's command may have at once.",
  }),
  AGENTJOBS_CHECK_DISK_MB: documented(integer(16, 1_048_576).default(1024), {
    group: 'checks',
    description: "What a project's command may write, in its checkout and in `/tmp` (each).",
  }),
  AGENTJOBS_SANDBOX_UNLIMITED: documented(boolean.default(false), {
    group: 'checks',
    description:
      '**Unsafe**: run commands even where a limit of the sandbox cannot be enforced (no writable control groups); the CLI and the dashboard say so.',
  }),
  AGENTJOBS_SETUP_CACHE_MB: documented(integer(16, 1_048_576).optional(), {
    group: 'checks',
    description:
      "What a project's setup command may leave (its checkout with what it installed), which bounds the cached environment.",
    shownDefault: '`AGENTJOBS_CHECK_DISK_MB`',
  }),
  AGENTJOBS_MAX_COMMANDS: documented(integer(0, 10_000).default(20), {
    group: 'checks',
    description: "Calls of the agent's `run_command` per run (projects with `--agent-commands yes`).",
  }),
  AGENTJOBS_CHECK_PARSE_SECONDS: documented(integer(1, 600).default(5), {
    group: 'checks',
    description:
      'Time the built-in checks may spend parsing one file (in a worker thread); a file past it is a problem on that file.',
  }),
  AGENTJOBS_CHECK_PARSE_RUN_SECONDS: documented(integer(1, 3600).default(60), {
    group: 'checks',
    description:
      "Time one check run's files may spend parsing in the parse threads; time spent waiting for a thread (other jobs' files) is not counted.",
  }),
  ...slackSettings,
});

export type Environment = z.infer<typeof environmentSchema>;
