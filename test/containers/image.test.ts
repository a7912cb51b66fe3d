/**
 * The image, built with podman from the locally made bases: non-root on a read-only root, the
 * sandbox inside it (failing closed without its settings, enforcing its limits with them), and a
 * demo-model job against a PostgreSQL container that survives the kill of its worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseFlags,
  baseImages,
  buildImage,
  Made,
  podman,
  publishedPort,
  sandboxFlags,
  ulimits,
  waitForOk,
} from './podman.js';

const prefix = `agentjobs-test-${process.pid}`;
const image = 'localhost/agentjobs:test';
const made = new Made();
let postgresImage = '';

beforeAll(async () => {
  ({ postgres: postgresImage } = await baseImages());
  await buildImage(image);
});
afterAll(() => made.cleanup());

/** Runs `node -e source` in the image as the service runs (uid 10001, read-only root), with `flags`. */
async function nodeIn(flags: string[], source: string): Promise<string> {
  const name = `${prefix}-node-${made.containers.size}`;
  made.containers.add(name);
  return podman([
    'run',
    '--name',
    name,
    ...baseFlags(),
    ...flags,
    '--entrypoint',
    'node',
    image,
    '--input-type=module',
    '-e',
    source,
  ]);
}

/** The sandbox's status inside a container, as the worker would find it. */
const STATUS = `
const { sandboxStatus } = await import('/app/dist/checks/sandbox.js');
console.log(JSON.stringify(await sandboxStatus({ unlimited: false })));`;

/** A command that forks past a processes limit of 16, and one that allocates past 128 MiB. */
const LIMITS = `
const { runSandboxed } = await import('/app/dist/checks/sandbox.js');
const { mkdtempSync } = await import('node:fs');
const dir = mkdtempSync('/tmp/checkout-');
const limits = { processes: 16, memoryBytes: 128 * 1024 * 1024, diskBytes: 16 * 1024 * 1024 };
const common = { dir, timeoutMs: 60000, limits, maxOutputBytes: 4096 };
const who = await runSandboxed({ ...common, command: 'id -u; touch /usr/x 2>/dev/null || echo read-only' });
const forks = await runSandboxed({ ...common, command: 'for i in $(seq 1 64); do sleep 5 & done; wait' });
const memory = await runSandboxed({ ...common, command: 'node -e "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1))"' });
const disk = await runSandboxed({ ...common, command: 'head -c 64000000 /dev/zero > big' });
console.log(JSON.stringify({ who: who.output.trim(), forks: forks.exceeded, memory: memory.exceeded, disk: disk.exceeded }));`;

describe('the image', () => {
  it('runs as uid 10001 on a read-only root, serves /readyz and stops cleanly on SIGTERM', async () => {
    const name = `${prefix}-serve`;
    const volume = `${prefix}-serve-data`;
    made.containers.add(name);
    made.volumes.add(volume);
    await podman([
      'run',
      '--detach',
      '--name',
      name,
      ...baseFlags(),
      '-v',
      `${volume}:/var/lib/agentjobs`,
      '-p',
      '127.0.0.1::8080',
      '-e',
      'AGENTJOBS_MODEL=demo',
      '-e',
      'AGENTJOBS_ADMIN_PASSWORD=a-long-enough-password',
      '-e',
      'AGENTJOBS_SHUTDOWN_GRACE_SECONDS=2',
      image,
    ]);
    const port = await publishedPort(name, 8080);
    await waitForOk(`http://127.0.0.1:${port}/readyz`);
    const inside = await podman([
      'exec',
      name,
      'sh',
      '-c',
      'id -u; tr "\\0" " " < /proc/1/cmdline; echo; touch /usr/x 2>/dev/null || echo read-only; touch /var/lib/agentjobs/x /tmp/x && echo writable',
    ]);
    expect(inside.split('\n')).toEqual([
      '10001',
      '/usr/bin/tini -- node /app/dist/cli/main.js serve ',
      'read-only',
      'writable',
    ]);
    const started = Date.now();
    await podman(['stop', '--time', '30', name], 60_000);
    // tini passed SIGTERM on: the service drained and exited 0, well before podman's SIGKILL.
    expect(await podman(['inspect', name, '--format', '{{.State.ExitCode}}'])).toBe('0');
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it('fails closed without the sandbox settings, naming the one missing', async () => {
    const masked = JSON.parse(await nodeIn([], STATUS));
    expect(masked.available).toBe(false);
    expect(masked.reason).toMatch(/\/proc is masked.*unmask=\/proc\/\*.*procMount: Unmasked/);

    const readOnlyGroups = JSON.parse(await nodeIn(['--security-opt', 'unmask=/proc/*'], STATUS));
    expect(readOnlyGroups.available).toBe(false);
    expect(readOnlyGroups.reason).toMatch(/processes and memory limits cannot be enforced/);
    expect(readOnlyGroups.reason).toMatch(
      /cannot create control groups in \/sys\/fs\/cgroup\/pids\/agentjobs \((EROFS|ENOENT)\)\. In a container, bind a control group delegated/,
    );
  });

  it('runs a check command in the sandbox with its limits enforced, given the settings', async () => {
    const cgroup = `${prefix}-limits`;
    made.cgroups.add(cgroup);
    const status = JSON.parse(await nodeIn(sandboxFlags(cgroup), STATUS));
    expect(status).toMatchObject({ available: true, reason: null, unsafe: false });
    const limits = JSON.parse(await nodeIn(sandboxFlags(cgroup), LIMITS));
    expect(limits).toEqual({ who: '65534\nread-only', forks: 'processes', memory: 'memory', disk: 'disk' });
  });
});

describe('a demo-model job on PostgreSQL, in containers', () => {
  const network = `${prefix}-net`;
  const password = 'a-test-only-password';
  const env = [
    '-e',
    `DATABASE_URL=postgres://agentjobs:${password}@${prefix}-postgres:5432/agentjobs`,
    '-e',
    'AGENTJOBS_SECRET_KEY=a-test-only-secret-key-of-32-characters-or-more',
    '-e',
    'AGENTJOBS_ADMIN_PASSWORD=a-long-enough-password',
    '-e',
    'AGENTJOBS_LEASE_SECONDS=5',
    '-e',
    'AGENTJOBS_POLL_SECONDS=1',
  ];
  // One data volume for all: the sample repository quickstart makes there is the project's (`local`).
  const repos = ['-v', `${prefix}-data:/var/lib/agentjobs`];
  const common = () => [...baseFlags(), '--network', network, ...env, ...repos];

  async function startWorker(label: string): Promise<string> {
    const name = `${prefix}-worker-${label}`;
    made.containers.add(name);
    made.cgroups.add(name);
    await podman(['run', '--detach', '--name', name, ...common(), ...sandboxFlags(name), image, 'worker']);
    return name;
  }

  it('completes, though the worker running it is killed mid-run', async () => {
    made.networks.add(network);
    made.volumes.add(`${prefix}-data`);
    await podman(['network', 'create', network]);
    const postgres = `${prefix}-postgres`;
    made.containers.add(postgres);
    await podman([
      'run',
      '--detach',
      '--name',
      postgres,
      '--runtime',
      'runc',
      ...ulimits(),
      '--network',
      network,
      '-e',
      'POSTGRES_USER=agentjobs',
      '-e',
      `POSTGRES_PASSWORD=${password}`,
      '-e',
      'POSTGRES_DB=agentjobs',
      postgresImage,
    ]);
    const cli = async (...args: string[]) => {
      const name = `${prefix}-cli-${made.containers.size}`;
      made.containers.add(name);
      made.cgroups.add(`${prefix}-cli`);
      // With the sandbox's settings: a check command can be set only where the sandbox works.
      return podman(['run', '--name', name, ...common(), ...sandboxFlags(`${prefix}-cli`), image, ...args]);
    };
    // PostgreSQL takes a moment on its first start: migrate until it answers.
    for (let attempt = 0; ; attempt++) {
      try {
        await cli('migrate');
        break;
      } catch (error) {
        if (attempt > 60) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    const quickstart = JSON.parse(await cli('quickstart', '--demo', '--json'));
    const projectId = quickstart.project.id as string;
    // A check that takes a while, so the worker can be killed while it runs.
    await cli('project', 'update', projectId, '--check-command', 'sleep 8');

    const api = `${prefix}-api`;
    made.containers.add(api);
    await podman(['run', '--detach', '--name', api, ...common(), '-p', '127.0.0.1::8080', image, 'api']);
    const url = `http://127.0.0.1:${await publishedPort(api, 8080)}`;
    await waitForOk(`${url}/readyz`);
    const first = await startWorker('a');

    const headers = { authorization: `Bearer ${quickstart.key}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/v2/agent/${projectId}/job`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Add a page about syncing notes offline' }),
    });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { id: string };
    const read = async () =>
      (await (await fetch(`${url}/v2/agent/${projectId}/job/${job.id}`, { headers })).json()) as {
        status: string;
        phase: string | null;
        prLink: string | null;
        error: unknown;
      };
    const until = async (done: (state: Awaited<ReturnType<typeof read>>) => boolean, timeoutMs: number) => {
      const started = Date.now();
      for (;;) {
        const state = await read();
        if (done(state)) return state;
        if (Date.now() - started > timeoutMs) throw new Error(`the job is still ${JSON.stringify(state)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const terminal = (state: { status: string }) => state.status !== 'active';
    await until((state) => state.phase === 'running' || terminal(state), 120_000);
    // The demo model's steps take well under a second; then the check command sleeps 8 s.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await read()).toMatchObject({ status: 'active', phase: 'running' });
    await podman(['kill', '--signal', 'KILL', first]);
    await startWorker('b');
    const finished = await until(terminal, 180_000);
    expect(finished).toMatchObject({ status: 'completed', error: null });
    expect(finished.prLink).toBeTruthy();
  });
});
