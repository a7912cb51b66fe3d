import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Db } from './db.js';
import * as m0001 from './migrations/0001_initial.js';
import * as m0002 from './migrations/0002_worker.js';
import * as m0003 from './migrations/0003_dashboard.js';
import * as m0004 from './migrations/0004_published.js';
import * as m0005 from './migrations/0005_webhooks.js';
import * as m0006 from './migrations/0006_instance_keys.js';
import * as m0008 from './migrations/0008_usage_cost.js';
import * as m0009 from './migrations/0009_checks.js';
import * as m0010 from './migrations/0010_idempotency_owner.js';
import * as m0011 from './migrations/0011_close_pr_on_archive.js';
import * as m0012 from './migrations/0012_pull_request_base.js';
import * as m0013 from './migrations/0013_spend_reservations.js';
import * as m0014 from './migrations/0014_host_events.js';
import * as m0015 from './migrations/0015_context_repositories.js';
import * as m0016 from './migrations/0016_run_progress.js';
import * as m0017 from './migrations/0017_project_environment.js';
import * as m0018 from './migrations/0018_automations.js';
import * as m0019 from './migrations/0019_project_mention.js';
import * as m0020 from './migrations/0020_setup_review.js';
import * as m0021 from './migrations/0021_one_event_one_run.js';
import * as m0022 from './migrations/0022_pull_request_quotes.js';
import * as m0023 from './migrations/0023_progress_messages.js';
import * as m0024 from './migrations/0024_slack.js';
import * as m0025 from './migrations/0025_pull_request_commands.js';
import * as m0026 from './migrations/0026_host_pull_requests.js';
import * as m0027 from './migrations/0027_automation_slack.js';
import * as m0028 from './migrations/0028_linear.js';

// Migrations are imported, not read from disk, so the built package and tests run the same code.
const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_worker': m0002,
  '0003_dashboard': m0003,
  '0004_published': m0004,
  '0005_webhooks': m0005,
  '0006_instance_keys': m0006,
  '0008_usage_cost': m0008,
  '0009_checks': m0009,
  '0010_idempotency_owner': m0010,
  '0011_close_pr_on_archive': m0011,
  '0012_pull_request_base': m0012,
  '0013_spend_reservations': m0013,
  '0014_host_events': m0014,
  '0015_context_repositories': m0015,
  '0016_run_progress': m0016,
  '0017_project_environment': m0017,
  '0018_automations': m0018,
  '0019_project_mention': m0019,
  '0020_setup_review': m0020,
  '0021_one_event_one_run': m0021,
  '0022_pull_request_quotes': m0022,
  '0023_progress_messages': m0023,
  '0024_slack': m0024,
  '0025_pull_request_commands': m0025,
  '0026_host_pull_requests': m0026,
  '0027_automation_slack': m0027,
  '0028_linear': m0028,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Brings the schema to the latest version. Safe to run from several processes at once: Kysely
 * takes a lock row for the run, and the one race it leaves (two processes creating its own
 * bookkeeping tables at the same moment) ends in a unique-key clash that we treat as "someone
 * else did it" and retry.
 */
export async function migrate(db: Db): Promise<string[]> {
  // During a rolling upgrade the next version may have migrated already. Its migrations only
  // expand the schema, so this version runs on it; but Kysely's `migrateToLatest` refuses a
  // database that ran migrations it does not know. With nothing of ours pending there is nothing to do.
  if ((await pendingMigrations(db)).length === 0) return [];
  const migrator = new Migrator({ db: db.kysely, provider });
  const applied: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    // An attempt that ends in a clash may have run migrations before it: this process applied
    // those, and the retry (which finds them done) will not name them again.
    for (const result of results ?? []) if (result.status === 'Success') applied.push(result.migrationName);
    if (!error) return applied;
    if (attempt >= 5 || !isCreationRace(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/**
 * The migrations this version knows that the database has not run: none once `migrate` ran here or
 * elsewhere. Migrations another version added are not this version's business (they only expand).
 */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const known = await new Migrator({ db: db.kysely, provider }).getMigrations();
  return known.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

function isCreationRace(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  const message = String((error as Error).message ?? '');
  // 23505 unique_violation, 42P07 duplicate_table (PostgreSQL); SQLITE_BUSY under contention.
  // SQLite takes no migration lock across processes (Kysely's adapter has none), so two may run
  // one migration: the loser's record of it clashes with the winner's (a unique key), or its DDL
  // finds the work done (a table or column that exists). The retry then finds nothing to do.
  return (
    code === '23505' ||
    code === '42P07' ||
    code === 'SQLITE_BUSY' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    /already exists|duplicate column/.test(message)
  );
}
