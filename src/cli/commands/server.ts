import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { startServer } from '../../server.js';
import { openDb } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { type OutputOptions, print } from '../output.js';

function serveUntilSignal(role: string) {
  return async () => {
    const server = await startServer(loadConfig());
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      server.logger.info({ signal, role }, 'shutting down');
      await server.stop();
      process.exit(0);
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
  };
}

export function registerServerCommands(program: Command) {
  program
    .command('serve')
    .description('Run the API, the dashboard and a worker in one process (SQLite by default)')
    .action(serveUntilSignal('serve'));

  program
    .command('api')
    .description('Run only the HTTP API, for scale-out with DATABASE_URL=postgres://…')
    .action(serveUntilSignal('api'));

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
