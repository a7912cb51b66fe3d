import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { CliError, type OutputOptions, print } from '../output.js';

type Role = 'serve' | 'api' | 'worker';

/** How long after the grace period a stopping process may take before it exits regardless. */
const EXIT_DEADLINE_MARGIN_MS = 5_000;

/** What the first Ctrl-C says: how long stopping may take, and how to stop at once. */
function stoppingMessage(role: Role, graceMs: number): string {
  const again = 'Press Ctrl-C again to stop at once';
  if (role === 'api') return `\nStopping: requests in flight finish first. ${again}.\n`;
  const seconds = Math.round(graceMs / 1000);
  return `\nStopping: running jobs get up to ${seconds} s to finish (AGENTJOBS_SHUTDOWN_GRACE_SECONDS); any still running then go back to the queue. ${again}: jobs still running resume after the next start.\n`;
}

/** What the second Ctrl-C says. */
const STOPPING_NOW: Record<Role, string> = {
  serve: 'Stopping now. Jobs that were running resume after the next start.\n',
  worker: 'Stopping now. Jobs that were running resume after the next start.\n',
  api: 'Stopping now.\n',
};

/**
 * Runs a role until SIGTERM or SIGINT, then stops gracefully: the API finishes requests in flight,
 * the worker stops claiming, lets running jobs finish within AGENTJOBS_SHUTDOWN_GRACE_SECONDS and
 * hands back the rest. A second signal exits at once.
 */
function runUntilSignal(role: Role) {
  return async () => {
    // What the service makes from here on (mirrors, worktrees, check folders, lock files, what git
    // and its children make in them) is its user's alone; children inherit the mask.
    process.umask(0o077);
    const config = loadConfig();
    // The server (Fastify, the model SDKs, the code-host clients) loads only for the roles that run
    // it, so the client commands of this CLI start in a fraction of the time.
    const [{ startServer, startWorkerProcess }, { exitNow }] = await Promise.all([
      import('../../server.js'),
      import('../../log.js'),
    ]);
    // Listening before the start: the ready line is logged before startServer returns, and a
    // SIGTERM right after it must stop the process gracefully, not kill it by default.
    let requested: string | undefined;
    let stop = (signal: string) => {
      if (requested) process.exit(1);
      requested = signal;
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    const running = await (role === 'worker'
      ? startWorkerProcess(config)
      : startServer(config, { worker: role === 'serve' })
    ).catch((error: unknown) => {
      // The first thing a second `npm start` meets: say it in words, not a stack.
      if ((error as { code?: string }).code === 'EADDRINUSE')
        throw new CliError(
          `Port ${config.port} on ${config.host} is in use: another agentjobs (or another program) listens there. Stop it, or start this one with PORT=8081 (and AGENTJOBS_PUBLIC_URL to match).`,
          'port_in_use',
        );
      throw error;
    });
    const graceMs = config.worker.shutdownGraceMs;
    let stopping = false;
    stop = (signal: string) => {
      if (stopping) {
        if (signal === 'SIGINT') process.stderr.write(STOPPING_NOW[role]);
        // A person's word, not the jobs' fault: the next start takes them back without counting it.
        running.worker?.stoppedAtOnce();
        running.logger.warn({ signal, role }, 'second signal: exiting now');
        exitNow(running.logger, 1);
      }
      stopping = true;
      running.logger.info({ signal, role }, 'shutting down');
      // Ctrl-C comes from someone at a terminal, who would otherwise wait without knowing for how long.
      if (signal === 'SIGINT') process.stderr.write(stoppingMessage(role, graceMs));
      // The deadline holds whatever shutdown is waiting on (a job that ignores its abort, a
      // database that does not answer, a log destination that takes nothing); unref'd so that it
      // never keeps a finished process alive.
      setTimeout(() => {
        running.logger.error({ role }, 'shutdown overran its deadline: exiting now');
        exitNow(running.logger, 1);
      }, graceMs + EXIT_DEADLINE_MARGIN_MS).unref();
      running.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          running.logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    if (requested) stop(requested);
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
      const [{ openDb }, { migrate }] = await Promise.all([
        import('../../store/db.js'),
        import('../../store/migrate.js'),
      ]);
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
