/**
 * The setup command's network (sandbox.ts): the outside world, never this machine. The sandbox gets
 * a network namespace of its own, as every other run does, and `slirp4netns` (user-mode
 * networking, as rootless containers use) gives it a route out through ordinary sockets of the
 * service's user, with `--disable-host-loopback`: no service listening on the host's loopback (the
 * API, `/metrics`, a model endpoint on 127.0.0.1) can be reached, and since abstract unix sockets
 * belong to a network namespace, neither can the host's. Its resolver (10.0.2.3) forwards to the
 * host's. Where `slirp4netns` is missing, setup does not run: it never falls back to the host's
 * network.
 *
 * The sandbox waits (bubblewrap's `--block-fd`) until the network is up: bubblewrap reports its
 * child's process id on `--info-fd`, slirp4netns attaches to that process's namespaces and says it
 * is ready on its `--ready-fd`, and only then may the command start. Closing slirp4netns's
 * `--exit-fd` ends it with the run (and with this process, should it die).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The program that gives the setup command its network, and the Debian package it is in. */
export const NETWORK_HELPER = 'slirp4netns';

/** The descriptors the sandbox's child reads and writes for the network (see `networkArguments`). */
export const NETWORK_FDS = { info: 4, block: 5, resolver: 6 } as const;

/** The resolver slirp4netns answers on inside the namespace. */
const RESOLVER = '10.0.2.3';

/** Why the setup command cannot have its network here, or null when it can. */
export function networkProblem(): string | null {
  const found = (process.env.PATH ?? '')
    .split(delimiter)
    .some((folder) => folder && existsSync(join(folder, NETWORK_HELPER)));
  return found
    ? null
    : `${NETWORK_HELPER} is not installed: the setup command reaches the network only through it, so that it cannot reach this machine's own services. Install the slirp4netns package (Debian/Ubuntu: apt-get install slirp4netns).`;
}

/** The bubblewrap arguments of a run with network: report the child, wait, and our resolver. */
export function networkArguments(): string[] {
  const { info, block, resolver } = NETWORK_FDS;
  return [
    '--info-fd',
    String(info),
    '--block-fd',
    String(block),
    '--ro-bind-data',
    String(resolver),
    '/etc/resolv.conf',
  ];
}

/**
 * Resolves once bubblewrap has set up the loopback device of the sandbox's namespace (its
 * 127.0.0.1 is in the namespace's routing table): slirp4netns configuring the same namespace at
 * the same moment makes bubblewrap's setup fail. Gives up waiting after a second (the sandbox may
 * have ended; the run's own limits cover the rest).
 */
async function loopbackReady(pid: string): Promise<void> {
  const deadline = Date.now() + 1000;
  while (Date.now() < deadline) {
    const table = await readFile(`/proc/${pid}/net/fib_trie`, 'utf8').catch(() => null);
    if (table === null || table.includes('127.0.0.1')) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The network of one run. */
export interface RunNetwork {
  /** Ends slirp4netns; call when the sandbox has ended. */
  stop(): void;
}

/**
 * Attaches the network to the sandbox `child` started with `networkArguments` (its stdio has pipes
 * at `NETWORK_FDS`), then lets the command start. `failed` gets a sentence when it cannot, before
 * the command started: the caller ends the sandbox.
 */
export function attachNetwork(child: ChildProcess, failed: (why: string) => void): RunNetwork {
  const stdio = child.stdio as unknown as (Readable | Writable)[];
  const info = stdio[NETWORK_FDS.info] as Readable;
  const block = stdio[NETWORK_FDS.block] as Writable;
  const resolver = stdio[NETWORK_FDS.resolver] as Writable;
  for (const stream of [block, resolver]) stream.on('error', () => {});
  resolver.end(`nameserver ${RESOLVER}\n`);
  let helper: ChildProcess | null = null;
  let stopped = false;
  // Once the command runs, a network that goes away is the command's failure, not the sandbox's.
  let ready = false;
  let said = '';
  let reported = '';
  const onInfo = (chunk: Buffer) => {
    reported += chunk.toString('utf8');
    const pid = /"child-pid"\s*:\s*(\d+)/.exec(reported)?.[1];
    if (!pid || started || stopped) return;
    started = true;
    info.off('data', onInfo);
    void loopbackReady(pid).then(() => {
      if (!stopped) attach(pid);
    });
  };
  let started = false;
  const attach = (pid: string) => {
    helper = spawn(
      NETWORK_HELPER,
      [
        '--configure',
        '--mtu=65520',
        '--disable-host-loopback',
        // Only the network namespace is joined, by path: bubblewrap's child has moved on to a
        // user namespace of its own by now, in which the helper would have no say over it.
        '--netns-type=path',
        '--enable-sandbox',
        '--enable-seccomp',
        '--ready-fd',
        '3',
        '--exit-fd',
        '4',
        `/proc/${pid}/ns/net`,
        'tap0',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
    );
    const running = helper;
    (running.stderr as Readable).on('data', (chunk: Buffer) => {
      said = (said + chunk.toString('utf8')).slice(-2000);
    });
    (running.stdio[4] as Writable).on('error', () => {});
    (running.stdio[3] as Readable).once('data', () => {
      if (stopped) return;
      ready = true;
      block.end('1');
    });
    running.on('error', (error) => {
      if (!stopped && !ready) failed(`${NETWORK_HELPER} could not start: ${error.message}`);
    });
    running.on('exit', (code) => {
      if (stopped || ready) return;
      const words = said
        .split('\n')
        .filter((line) => line && !/seccomp is experimental/.test(line))
        .join(' ')
        .trim();
      failed(`${NETWORK_HELPER} ended (exit code ${code})${words ? `: ${words}` : ''}`);
    });
  };
  info.on('data', onInfo);
  info.on('error', () => {});
  return {
    stop() {
      stopped = true;
      block.destroy();
      if (!helper) return;
      // Its exit descriptor closing ends it; a kill makes sure.
      (helper.stdio[4] as Writable).destroy();
      if (helper.exitCode === null && helper.signalCode === null) helper.kill('SIGKILL');
    },
  };
}
