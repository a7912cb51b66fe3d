/**
 * What the server says and secures as it starts (server.ts): the files of the data directory made
 * private, which model jobs get, the dashboard's first password, and the public URL once the port
 * is known.
 */
import { join } from 'node:path';
import { REAL_MODEL_HINT } from './agent/demo-change.js';
import { createLanguageModel, type ModelSettings } from './agent/models.js';
import type { ModelStatus } from './api/plugins/health.js';
import type { Config } from './config/config.js';
import { protectDataDir } from './config/data-dir.js';
import { DEMO_MODEL_ID } from './domain/model-id.js';
import { ensureAdminPassword } from './domain/password.js';
import { flushLog, type Logger } from './log.js';
import type { Store } from './store/store.js';

/**
 * With PORT=0 (an ephemeral port) and no AGENTJOBS_PUBLIC_URL, the default public URL names port 0;
 * links the worker makes (a local pull request's `prLink`) must name the port the server got.
 */
export function withListeningPort<Settings extends Pick<Config, 'publicUrl'>>(
  config: Settings,
  address: string,
): Settings {
  const url = new URL(config.publicUrl);
  if (url.port !== '0') return config;
  url.port = new URL(address).port;
  return Object.freeze({ ...config, publicUrl: url.toString().replace(/\/+$/, '') });
}

/**
 * Says at start which model jobs get when that needs saying: the built-in demo model (so nobody
 * mistakes its pages for a model's work), or none that can be used (no provider configured, most
 * often), with both ways forward.
 */
export function announceModel(config: ModelSettings & Pick<Config, 'defaultModel'>, logger: Logger): void {
  if (config.defaultModel === DEMO_MODEL_ID) {
    logger.info(
      `Using the built-in demo model: jobs make a small labelled change without an AI model; ${REAL_MODEL_HINT}.`,
    );
    return;
  }
  try {
    createLanguageModel(config.defaultModel, config);
  } catch (error) {
    logger.warn(
      `Jobs without a model of their own will fail with model_unavailable: ${(error as Error).message} Or set ANTHROPIC_API_KEY, OPENAI_API_KEY, or OPENAI_COMPATIBLE_BASE_URL with AGENTJOBS_MODEL=openai-compatible:<model>. To try the service without a model, set AGENTJOBS_MODEL=demo, or run \`agentjobs quickstart --demo\`.`,
    );
  }
}

/** Whether jobs that name no model of their own can run: what `/healthz` tells `agentjobs quickstart`. */
export function defaultModelStatus(config: ModelSettings & Pick<Config, 'defaultModel'>): ModelStatus {
  if (config.defaultModel === DEMO_MODEL_ID) return 'demo';
  try {
    createLanguageModel(config.defaultModel, config);
    return 'ready';
  } catch {
    return 'missing';
  }
}

/**
 * The dashboard's password: AGENTJOBS_ADMIN_PASSWORD, or one generated at the first start. A
 * generated one is written to the terminal once, never to the log (logs are kept and shipped): in a
 * frame on stderr, after the start's log lines are out so that it does not land among them.
 */
export async function announceAdminPassword(
  config: Pick<Config, 'adminPassword' | 'publicUrl'>,
  store: Store,
  address: string,
  logger: Logger,
): Promise<void> {
  const { generated } = await ensureAdminPassword(store.admin, config.adminPassword);
  if (!generated) return;
  const url = `${withListeningPort(config, address).publicUrl}/ui`;
  await flushLog(logger);
  process.stderr.write(
    frame([
      `Dashboard: ${url}`,
      `Admin password (shown this once): ${generated}`,
      'Set AGENTJOBS_ADMIN_PASSWORD to choose your own,',
      'or run `agentjobs admin password` to replace it.',
    ]),
  );
}

/** Lines in a box drawn with line characters, with a blank line around it. */
function frame(lines: string[]): string {
  const width = Math.max(...lines.map((line) => line.length));
  const rule = '─'.repeat(width + 2);
  const body = lines.map((line) => `  │ ${line.padEnd(width)} │`);
  return ['', `  ┌${rule}┐`, ...body, `  └${rule}┘`, '', ''].join('\n');
}

/**
 * Keeps the data directory and the service's files in it private to its user (`protectDataDir`),
 * and says in the log what was open to others: tightened, or left as it was and why.
 */
export function protectFiles(config: Pick<Config, 'databaseUrl' | 'dataDir'>, logger: Logger): void {
  const database = config.databaseUrl.startsWith('sqlite:')
    ? config.databaseUrl.slice('sqlite:'.length)
    : null;
  const files = [join(config.dataDir, 'secret.key')];
  if (database && database !== ':memory:') files.push(database, `${database}-wal`, `${database}-shm`);
  for (const { path, was, tightened, reason } of protectDataDir(config.dataDir, files)) {
    if (tightened)
      logger.warn({ path, was }, 'other local users could read this: made it private to this user');
    else logger.warn({ path, was, reason }, 'other local users can read this, and it was left as it is');
  }
}
