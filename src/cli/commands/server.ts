import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config/config.js';
import { CliError, type OutputOptions, print } from '../output.js';

type Role = 'serve' | 'api' | 'worker';

/** How long after the grace period a stopping process may take before it exits regardless. */
const EXIT_DEADLINE_MARGIN_MS = 5_000;

/** What stopping waits for, as the first Ctrl-C says it: only what there is. */
interface Waits {
  role: Role;
  drainMs: number;
  graceMs: number;
  /** Jobs running at this moment. */
  running: number;
}

/**
 * What the first Ctrl-C says: what stopping waits for and how long, and how to stop at once. With
 * no job running there is nothing to wait for: it stops at once (no drain either, see `quickStop`).
 */
export function stoppingMessage({ role, drainMs, graceMs, running }: Waits): string {
  if (quickStop('SIGINT', running))
    return role === 'api' ? '\nStopping.\n' : '\nStopping: no job is running.\n';
  const waits: string[] = [];
  if (role !== 'worker' && drainMs > 0)
    waits.push(
      `new jobs are refused and this port answers for ${Math.round(drainMs / 1000)} s more (AGENTJOBS_DRAIN_SECONDS)`,
    );
  waits.push(
    `running jobs get up to ${Math.round(graceMs / 1000)} s to finish (AGENTJOBS_SHUTDOWN_GRACE_SECONDS); any still running then go back to the queue`,
  );
  return `\nStopping: ${waits.join('; ')}. Press Ctrl-C again to stop at once: jobs still running resume after the next start.\n`;
}

/**
 * A Ctrl-C with no job running stops without the drain: a person at a terminal, not a load
 * balancer, asked, and the port closing at once is what they expect. SIGTERM always drains.
 */
const quickStop = (signal: string, running: number) => signal === 'SIGINT' && running === 0;

/** What the second Ctrl-C says. */
const stoppingNow = (running: number) =>
  running > 0 ? 'Stopping now. Jobs that were running resume after the next start.\n' : 'Stopping now.\n';

/** `--max-jobs`: a whole number of jobs, at least one. */
function jobCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(count) || count < 1)
    throw new InvalidArgumentError('give a whole number of jobs, at least 1.');
  return count;
}

interface WorkerOptions {
  maxJobs?: number;
  once?: boolean;
}

/**
 * Runs a role until SIGTERM or SIGINT, then drains and stops (`RunningProcess.stop`): `/readyz`
 * says 503, new jobs are refused while the port answers for AGENTJOBS_DRAIN_SECONDS, the worker
 * stops claiming, lets running jobs finish within AGENTJOBS_SHUTDOWN_GRACE_SECONDS and hands back
 * the rest. A second signal exits at once. A worker with `--max-jobs` stops by itself, exit 0, once
 * its jobs are over.
 */
function runUntilSignal(role: Role) {
  return async (commandOptions: WorkerOptions = {}) => {
    // What the service makes from here on (mirrors, worktrees, check folders, lock files, what git
    // and its children make in them) is its user's alone; children inherit the mask.
    process.umask(0o077);
    const config = loadConfig();
    const maxJobs = commandOptions.once ? 1 : commandOptions.maxJobs;
    // The server (Fastify, the model SDKs, the code-host clients) loads only for the roles that run
    // it, so the client commands of this CLI start in a fraction of the time.
    const [{ startProcess }, { exitNow }] = await Promise.all([
      import('../../server.js'),
      import('../../log.js'),
    ]);
    // Listening before the start: the ready line is logged before startProcess returns, and a
    // SIGTERM right after it must stop the process gracefully, not kill it by default.
    let requested: string | undefined;
    let stop = (signal: string) => {
      if (requested) process.exit(1);
      requested = signal;
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    const running = await startProcess(config, role, maxJobs ? { maxJobs } : {}).catch((error: unknown) => {
      // The first thing a second `npm start` meets: say it in words, not a stack.
      if ((error as { code?: string }).code === 'EADDRINUSE')
        throw new CliError(
          `Port ${config.port} on ${config.host} is in use: another agentjobs (or another program) listens there. Stop it, or start this one with PORT=8081 (and AGENTJOBS_PUBLIC_URL to match).`,
          'port_in_use',
        );
      throw error;
    });
    const graceMs = config.worker.shutdownGraceMs;
    const drainMs = role === 'worker' ? 0 : config.lifecycle.drainMs;
    let stopping = false;
    stop = (signal: string) => {
      const jobs = running.worker?.running ?? 0;
      if (stopping) {
        if (signal === 'SIGINT') process.stderr.write(stoppingNow(jobs));
        // A person's word, not the jobs' fault: the next start takes them back without counting it.
        running.worker?.stoppedAtOnce();
        running.logger.warn({ signal, role }, 'second signal: exiting now');
        exitNow(running.logger, 1);
      }
      stopping = true;
      running.logger.info({ signal, role, runningJobs: jobs }, 'shutting down');
      // Ctrl-C comes from someone at a terminal, who would otherwise wait without knowing for how long.
      if (signal === 'SIGINT')
        process.stderr.write(stoppingMessage({ role, drainMs, graceMs, running: jobs }));
      // The deadline holds whatever shutdown is waiting on (a job that ignores its abort, a
      // database that does not answer, a log destination that takes nothing); unref'd so that it
      // never keeps a finished process alive. The drain and the grace period run side by side.
      setTimeout(() => {
        running.logger.error({ role }, 'shutdown overran its deadline: exiting now');
        exitNow(running.logger, 1);
      }, Math.max(graceMs, drainMs) + EXIT_DEADLINE_MARGIN_MS).unref();
      running.stop({ drain: !quickStop(signal, jobs) }).then(
        () => process.exit(0),
        (error: unknown) => {
          running.logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    if (requested) stop(requested);
    // `--max-jobs`: its jobs are over, so it stops as a signal would have it, and exits 0.
    void running.worker?.finished.then(() => {
      if (!stopping) stop(`max-jobs ${maxJobs}`);
    });
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
    .option(
      '--max-jobs <n>',
      'claim at most this many jobs, finish them and exit 0 (batch runners, KEDA ScaledJobs)',
      jobCount,
    )
    .option('--once', 'claim one job, finish it and exit 0 (the same as --max-jobs 1)')
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
