/**
 * The setup command's network, in the real sandbox: it reaches the outside through user-mode
 * networking (slirp4netns), but no service on this machine's loopback and no abstract unix socket
 * of the host. Only loopback listeners of this test are targeted; the outside is the npm registry,
 * the one outside address this machine may reach.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createSocketServer, type Server as SocketServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxed, sandboxStatus } from '../../src/checks/sandbox.js';
import { networkProblem } from '../../src/checks/sandbox-network.js';

const status = await sandboxStatus({ unlimited: false });
const missing = networkProblem();
const MiB = 1024 * 1024;
const LIMITS = { processes: 64, memoryBytes: 512 * MiB, diskBytes: 64 * MiB };
const ABSTRACT = `agentjobs-setup-test-${process.pid}`;

/** Whether this machine itself reaches the npm registry: the outside the setup may use here. */
function registryReachable(): boolean {
  try {
    execFileSync(
      'node',
      [
        '-e',
        "fetch('https://registry.npmjs.org/').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))",
      ],
      {
        timeout: 15_000,
      },
    );
    return true;
  } catch {
    return false;
  }
}
const outside = status.available && !missing && registryReachable();

let root: string;
let server: Server;
let port: number;
let socket: SocketServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-setup-network-'));
  // What the host offers on loopback only: the service's API, /metrics, a model endpoint.
  server = createServer((_request, response) => response.end('host-loopback-service'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  socket = createSocketServer((connection) => connection.end('host-abstract-socket\n'));
  await new Promise<void>((resolve) => socket.listen(`\0${ABSTRACT}`, resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => socket.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

const setup = (command: string) =>
  runSandboxed({
    command,
    dir: root,
    network: true,
    timeoutMs: 30_000,
    limits: LIMITS,
    maxOutputBytes: 65536,
  });

/** A node one-liner that prints what `attempt` got, or `refused <code>`. */
const tryTo = (label: string, attempt: string) =>
  `node -e "${attempt}.then((got) => console.log('${label} reached', got), (e) => console.log('${label} refused', e.cause?.code ?? e.code ?? e.message))"`;

describe.skipIf(!status.available || missing !== null)('the setup command’s network', () => {
  it('reaches no service on the host’s loopback and no abstract socket of the host', async () => {
    // Both exist, seen from the host.
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('host-loopback-service');
    const loopback = tryTo('loopback', `fetch('http://127.0.0.1:${port}/').then((r) => r.text())`);
    // The gateway slirp4netns offers is the host's loopback unless --disable-host-loopback.
    const gateway = tryTo(
      'gateway',
      `fetch('http://10.0.2.2:${port}/', { signal: AbortSignal.timeout(3000) }).then((r) => r.text())`,
    );
    const abstract = tryTo(
      'abstract',
      `new Promise((resolve, reject) => { const s = require('net').connect('\\\\0${ABSTRACT}'); s.on('data', (d) => resolve(String(d).trim())); s.on('error', reject); })`,
    );
    const run = await setup(`${loopback}; ${gateway}; ${abstract}`);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toMatch(/loopback refused ECONNREFUSED/);
    expect(run.output).toMatch(/gateway refused/);
    expect(run.output).toMatch(/abstract refused ECONNREFUSED/);
    expect(run.output).not.toMatch(/reached/);
  });

  it.skipIf(!outside)(
    'resolves names and reaches the outside through its own network (the npm registry)',
    async () => {
      // This machine's own certificate authorities, as a setup would name them for its registry.
      const run = await setup(
        `export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt; ${tryTo('dns', "require('dns').promises.lookup('registry.npmjs.org').then((a) => a.family)")}; ${tryTo(
          'https',
          "fetch('https://registry.npmjs.org/').then((r) => r.status)",
        )}; cat /etc/resolv.conf; ip -4 -o addr show dev tap0 2>/dev/null | head -1`,
      );
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toMatch(/dns reached 4/);
      expect(run.output).toMatch(/https reached 200/);
      // Its own namespace: slirp4netns's resolver and address, not the host's.
      expect(run.output).toMatch(/nameserver 10\.0\.2\.3/);
    },
  );
});

describe.skipIf(!status.available)('without slirp4netns', () => {
  it('does not run the setup command at all, naming the package', async () => {
    // A search path with the sandbox's programs and not slirp4netns.
    const bin = join(root, 'bin');
    mkdirSync(bin);
    for (const program of ['bwrap', 'prlimit'])
      symlinkSync(execFileSync('which', [program], { encoding: 'utf8' }).trim(), join(bin, program));
    const path = process.env.PATH;
    process.env.PATH = bin;
    try {
      await expect(setup('touch /tmp/ran')).rejects.toThrow(
        /slirp4netns is not installed.*apt-get install slirp4netns/,
      );
    } finally {
      process.env.PATH = path;
    }
  });
});
