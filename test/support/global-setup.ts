import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import {
  commandOf,
  descendants,
  endProcesses,
  entriesOf,
  type Leaks,
  leakReport,
  markedProcesses,
  openConnections,
  parentOf,
  RUN_MARKER,
  removeFolder,
  settle,
} from './leaks.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of a reachable PostgreSQL, or null when the PostgreSQL suites are skipped. */
    postgresUrl: string | null;
  }
}

async function probePostgres(project: TestProject): Promise<string | null> {
  const url = process.env.AGENTJOBS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    project.provide('postgresUrl', url);
    return url;
  } catch (error) {
    if (process.env.AGENTJOBS_REQUIRE_POSTGRES === '1') {
      throw new Error(
        `PostgreSQL is required (AGENTJOBS_REQUIRE_POSTGRES=1) but ${url} is not reachable: ${error}`,
      );
    }
    console.log(`PostgreSQL not reachable at ${url}: skipping the PostgreSQL suites.`);
    project.provide('postgresUrl', null);
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The runner's own helpers (its pool workers, Vite's esbuild service): not a test's processes. */
function isRunnerOwn(pid: number): boolean {
  const command = commandOf(pid);
  return (
    parentOf(pid) === process.pid &&
    (command.includes('/node_modules/vitest/') || command.includes('esbuild'))
  );
}

/**
 * Probes PostgreSQL once for the whole run (without it the PostgreSQL suites are skipped with one
 * line of output; with AGENTJOBS_REQUIRE_POSTGRES=1, as in CI, its absence fails the run), and
 * guards the run against leaks. The run gets a temporary folder of its own (TMPDIR, which
 * `os.tmpdir()` reads and the workers and their children inherit), so that what other users of a
 * shared /tmp do is never counted; its processes carry a marker in their environment, so that one
 * reparented after its test worker ended is still found; its PostgreSQL connections carry an
 * application name. `leak-check.ts` names the test file that leaked; the teardown here catches the
 * rest and fails the run if anything is left.
 */
export default async function setup(project: TestProject) {
  const postgresUrl = await probePostgres(project);
  const run = randomBytes(6).toString('hex');
  const runFolder = fs.mkdtempSync(path.join(os.tmpdir(), `agentjobs-test-run-${run}-`));
  // Open to other users as /tmp is: a test runs PostgreSQL's initdb as `postgres` in a folder below.
  fs.chmodSync(runFolder, 0o755);
  const outerTemporary = process.env.TMPDIR;
  process.env.TMPDIR = runFolder;
  process.env[RUN_MARKER] = run;
  process.env.PGAPPNAME = `agentjobs-test-${run}`;

  return async function teardown() {
    const left = await settle(
      async () =>
        ({
          processes: [...new Set([...descendants(process.pid), ...markedProcesses(run)])].filter(
            (pid) => pid !== process.pid && !isRunnerOwn(pid),
          ),
          folders: entriesOf(runFolder).map((entry) => path.join(runFolder, entry)),
          connections: postgresUrl ? await openConnections(postgresUrl, `agentjobs-test-${run}`) : [],
        }) satisfies Leaks,
    );
    const report = leakReport('The test run', left);
    endProcesses(left.processes);
    removeFolder(runFolder);
    if (outerTemporary === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outerTemporary;
    if (report) {
      // Vitest only logs an error thrown here; the exit code is what fails the run.
      process.exitCode = 1;
      throw new Error(report);
    }
  };
}
