import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { startServer, startWorkerProcess } from '../../server.js';
import { openDb } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { type OutputOptions, print } from '../output.js';

type Role = 'serve' | 'api' | 'worker';

/**
 * Runs a role until SIGTERM or SIGINT, then stops gracefully: the API finishes requests in flight,
 * the worker stops claiming, lets running jobs finish within AGENTJOBS_SHUTDOWN_GRACE_SECONDS and
 * hands back the rest. A second signal exits at once.
 */
function runUntilSignal(role: Role) {
  return async () => {
    const config = loadConfig();
    const running =
      role === 'worker'
        ? await startWorkerProcess(config)
        : await startServer(config, { worker: role === 'serve' });
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) {
        running.logger.warn({ signal, role }, 'second signal: exiting now');
        process.exit(1);
      }
      stopping = true;
      running.logger.info({ signal, role }, 'shutting down');
      try {
        await running.stop();
        process.exit(0);
      } catch (error) {
        running.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      }
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
  };
}

export function registerServerCommands(program: Command) {
  program
    .command('serve')
    .description('Run the API, the dashboard and a worker in one process (SQLite by default)')
    .action(runUntilSignal('serve'));

  program
    .command('api')
    .description('Run only the HTTP API, for scale-out with DATABASE_URL=postgres://…')
    .action(runUntilSignal('api'));

  program
    .command('worker')
    .description(
      'Run only a worker, which claims and runs jobs, for scale-out with DATABASE_URL=postgres://…',
    )
    .action(runUntilSignal('worker'));

  program
    .command('migrate')
    .description('Apply database migrations (the server also does this at start)')
    .option('--json', 'machine-readable output')
    .action(async (options: OutputOptions) => {
      const config = loadConfig();
      const db = openDb({ url: config.databaseUrl });
      try {
        const applied = await migrate(db);
        print(options, { applied }, () =>
          applied.length
            ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
            : 'The database is up to date.',
        );
      } finally {
        await db.close();
      }
    });
}
