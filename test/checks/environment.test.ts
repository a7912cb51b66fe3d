/**
 * The project's environment in the real sandbox, below the worker: the setup command has network,
 * but not to this machine (test/checks/setup-network.test.ts shows what it reaches), while later
 * commands have none; later commands get the environment read-only (a write fails, the next run sees it whole)
 * with a writable `.cache`; a setup that writes past its bound fails and keeps nothing; deleting a
 * project's environments removes them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentCommand } from '../../src/checks/agent-command.js';
import {
  type EnvironmentOptions,
  prepareEnvironment,
  removeProjectEnvironments,
} from '../../src/checks/environment.js';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { createRedactor } from '../../src/domain/redact.js';

const status = await sandboxStatus({ unlimited: false });
const MiB = 1024 * 1024;
const SANDBOX = { processes: 64, memoryBytes: 256 * MiB, diskBytes: 64 * MiB, unlimited: false };

let root: string;
let repo: string;
let commit: string;
let server: Server;
let port: number;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-environment-'));
  repo = join(root, 'repo');
  mkdirSync(repo);
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, 'package-lock.json'), '{}\n');
  writeFileSync(join(repo, 'index.md'), '# Home\n');
  execFileSync('git', ['-C', repo, 'add', '-A']);
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'init']);
  commit = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  // A package registry of one answer, on this machine's loopback.
  server = createServer((_request, response) => response.end('package-from-registry'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

const options = (command: string, extra: Partial<EnvironmentOptions> = {}): EnvironmentOptions => ({
  projectId: 'project-a',
  command,
  environmentsDir: join(root, 'environments'),
  gitDir: repo,
  baseCommit: commit,
  timeoutSeconds: 30,
  sandbox: SANDBOX,
  maxBytes: 32 * MiB,
  redact: createRedactor([]),
  ...extra,
});

/** `command` as the agent's run_command runs it, on a copy of the base with `environment` laid in. */
const offline = (command: string, environment: string) =>
  runAgentCommand({
    command,
    timeoutSeconds: 30,
    sandbox: SANDBOX,
    environment,
    materialize: async (target) => {
      execFileSync('cp', ['-a', `${repo}/index.md`, target]);
    },
    scratchDir: join(root, 'scratch'),
    redact: createRedactor([]),
  });

const fetchScript = (file: string) =>
  `node -e "fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then((t) => require('fs').writeFileSync('${file}', t)).catch((e) => { console.log('no network', e.cause?.code ?? e.message); process.exit(4) })"`;

describe.skipIf(!status.available)('a project environment in the sandbox', () => {
  let environment: string;

  it('installs, never reaching this machine, then later commands use it offline', async () => {
    const made = await prepareEnvironment(
      options(
        `mkdir -p node_modules/pkg && echo package-from-registry > node_modules/pkg/index.txt && ${fetchScript('/tmp/host')}; echo "exit $?"`,
      ),
    );
    expect(made).toMatchObject({ status: 'built' });
    if (made.status !== 'built') return;
    // The server on this machine's loopback stands for the service's API: out of the setup's reach.
    expect(made.output).toMatch(/no network ECONNREFUSED\s+exit 4/);
    environment = made.dir;
    const read = await offline('cat node_modules/pkg/index.txt', environment);
    expect(read).toBe('Exit code: 0.\nIts output:\npackage-from-registry');
    const network = await offline(fetchScript('/tmp/x'), environment);
    expect(network).toMatch(/^Exit code: 4\./);
    expect(network).toMatch(/no network (ECONNREFUSED|ENETUNREACH)/);
  });

  it('lays it in read-only, with a writable .cache, and the next run sees it whole', async () => {
    const wrote = await offline(
      'echo changed > node_modules/pkg/index.txt; echo kept > node_modules/.cache/x && cat node_modules/.cache/x',
      environment,
    );
    expect(wrote).toMatch(/Read-only file system/);
    expect(wrote).toContain('kept');
    expect(await offline('cat node_modules/pkg/index.txt; ls node_modules/.cache', environment)).toBe(
      'Exit code: 0.\nIts output:\npackage-from-registry',
    );
  });

  it('is found again for the same lockfiles and command', async () => {
    const again = await prepareEnvironment(
      options(
        `mkdir -p node_modules/pkg && echo package-from-registry > node_modules/pkg/index.txt && ${fetchScript('/tmp/host')}; echo "exit $?"`,
      ),
    );
    expect(again).toMatchObject({ status: 'reused', dir: environment });
  });

  it('fails a setup that writes past its bound, naming the setting, and keeps nothing', async () => {
    const big = await prepareEnvironment(
      options('mkdir -p node_modules && head -c 40000000 /dev/zero > node_modules/big', {
        projectId: 'project-b',
      }),
    );
    expect(big).toMatchObject({ status: 'failed' });
    if (big.status === 'failed')
      expect(big.message).toMatch(/wrote more than 32 MiB \(AGENTJOBS_SETUP_CACHE_MB\)/);
    expect(readdirSync(join(root, 'environments', 'project-b'))).toEqual([]);
  });

  it('removes a project’s environments when the project goes', async () => {
    await removeProjectEnvironments(join(root, 'environments'), 'project-a');
    expect(existsSync(join(root, 'environments', 'project-a'))).toBe(false);
    expect(existsSync(join(root, 'environments', 'project-b'))).toBe(true);
  });
});
