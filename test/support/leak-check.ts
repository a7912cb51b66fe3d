// A setup file: every test file gets a temporary folder and a PostgreSQL application name of its
// own, and fails when, its own hooks done, it has left a process, a folder entry or a connection.
// Hooks run as a stack, so this afterAll runs after every afterAll of the test file.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, inject } from 'vitest';
import {
  descendants,
  endProcesses,
  entriesOf,
  leakReport,
  openConnections,
  RUN_MARKER,
  removeFolder,
  settle,
  trackPostgres,
} from './leaks.js';

/**
 * What tools keep in the temporary folder across processes: not a leak. tsx's transform cache, and
 * Node's module compile cache, which npm turns on for the processes it starts on Node 22 and later.
 */
const TOOL_CACHES = /^(tsx-\d+|node-compile-cache)$/;

const run = process.env[RUN_MARKER];
// Outside a run of the global setup (an editor's runner, say) there is nothing to compare with.
if (run && process.env.TMPDIR) {
  const fileFolder = fs.mkdtempSync(path.join(process.env.TMPDIR, 'file-'));
  fs.chmodSync(fileFolder, 0o755); // as the run's folder (global-setup.ts)
  const applicationName = `agentjobs-test-${run}-${path.basename(fileFolder)}`;
  process.env.TMPDIR = fileFolder;
  process.env.PGAPPNAME = applicationName;
  const postgresUrl = inject('postgresUrl');
  const openPostgres = trackPostgres();

  afterAll(async () => {
    const left = await settle(async () => ({
      processes: descendants(process.pid),
      folders: entriesOf(fileFolder).filter((entry) => !TOOL_CACHES.test(entry)),
      connections: [
        ...openPostgres(),
        ...(postgresUrl ? await openConnections(postgresUrl, applicationName) : []),
      ],
    }));
    const report = leakReport('This test file', left);
    endProcesses(left.processes);
    removeFolder(fileFolder);
    if (report) throw new Error(report);
  }, 30_000);
}
