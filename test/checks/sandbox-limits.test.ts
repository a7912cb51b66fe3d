/**
 * The sandbox's totals (docs/architecture.md#the-sandbox): processes and memory over all that a
 * command starts, what it writes to the checkout and /tmp, and an unprivileged user inside. Small
 * limits, so that each is reached in a moment. Skipped where the sandbox cannot run, unless
 * AGENTJOBS_REQUIRE_SANDBOX=1 (CI) makes that a failure.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCommandCheck } from '../../src/checks/command.js';
import { createRedactor } from '../../src/domain/redact.js';
import { sandboxForTests, siteFolder } from '../support/sandbox-site.js';

const status = await sandboxForTests('Sandbox limit tests');

const MiB = 1024 * 1024;
const LIMITS = { processes: 64, memoryBytes: 128 * MiB, diskBytes: 64 * MiB, unlimited: false };
let root: string;
let site: string;

beforeAll(() => {
  ({ root, site } = siteFolder('sandbox-limits'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
// No run leaves a control group behind, whatever became of it.
afterEach(() => expect(runGroupsLeft()).toEqual([]));

/** Runs `command` on a copy of the fixture site, as the worker would; `seen` watches the host meanwhile. */
async function run(
  command: string,
  options: { timeoutSeconds?: number; seen?: (checkout: string) => void } = {},
) {
  let checkout = '';
  const watcher = setInterval(() => options.seen?.(checkout), 25);
  try {
    return await runCommandCheck({
      command,
      timeoutSeconds: options.timeoutSeconds ?? 60,
      sandbox: LIMITS,
      materialize: async (target) => {
        checkout = target;
        execFileSync('cp', ['-a', `${site}/.`, target]);
      },
      scratchDir: join(root, 'scratch'),
      redact: createRedactor([]),
    });
  } finally {
    clearInterval(watcher);
  }
}

/** Host processes whose command line holds `marker`, read from /proc. */
function processesWith(marker: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) count++;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}

/** This test process's run groups still in the cgroup file system (named `<pid>-<n>`). */
function runGroupsLeft(): string[] {
  return execFileSync(
    'find',
    ['/sys/fs/cgroup', '-mindepth', '2', '-maxdepth', '8', '-type', 'd', '-name', `${process.pid}-*`],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean);
}

describe.skipIf(!status.available)('the sandbox caps totals', () => {
  it('stops a fork bomb at the process limit, and the host never sees more', async () => {
    const marker = `9.${(Date.now() % 100000) + 100000}`;
    let most = 0;
    let longestStall = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      longestStall = Math.max(longestStall, Date.now() - last);
      last = Date.now();
    }, 20);
    const started = Date.now();
    try {
      // Bounded: at most 2,000 sleeping children, each gone within 10 s even if nothing stops them.
      const result = await run(`i=0; while [ $i -lt 2000 ]; do sleep ${marker} & i=$((i+1)); done; wait`, {
        seen: () => (most = Math.max(most, processesWith(`sleep\0${marker}`))),
      });
      expect(result.status).toBe('failed');
      expect(result.message).toMatch(
        /started more than 64 processes at once and was stopped, with every process it started/,
      );
    } finally {
      clearInterval(ticker);
    }
    console.log(
      `fork bomb: at most ${most} of its processes at once on the host, stopped after ${Date.now() - started} ms, longest event-loop stall ${longestStall} ms`,
    );
    // The message above says the bomb reached the limit; the host is polled every 25 ms, so a bomb
    // stopped within its first poll may be seen at 0 (it was, once, on Node 24). Never above it.
    expect(most).toBeLessThanOrEqual(64);
    expect(processesWith(`sleep\0${marker}`)).toBe(0);
    // Stopped at once rather than when the sleeps end, and the service's event loop never stalled.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(longestStall).toBeLessThan(2_000);
  });

  it('stops processes that together use more memory than the limit, each under it', async () => {
    // Four processes of about 48 MB each, held at once: 192 MB against a total of 128 MiB.
    const hog = '(head -c 48000000 /dev/zero; sleep 3) | tail -c 48000000 > /dev/null';
    const result = await run(`for i in 1 2 3 4; do ${hog} & done; wait; echo all-done`);
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/used more than 128 MiB of memory .* and was stopped/);
    expect(result.problems[0]?.message ?? '').not.toMatch(/^all-done$/m);
  });

  it('fails a command that writes more than the disk limit to the checkout, or to /tmp', async () => {
    let largest = 0;
    const seen = (checkout: string) => {
      try {
        for (const name of readdirSync(checkout))
          largest = Math.max(largest, statSync(join(checkout, name)).size);
      } catch {
        // Not made yet, or removed already.
      }
    };
    for (const target of ['big', '/tmp/big']) {
      const result = await run(`head -c 100000000 /dev/zero > ${target} && echo wrote-it`, { seen });
      expect(result.status, target).toBe('failed');
      expect(result.message).toMatch(
        /wrote more than 64 MiB \(the checkout and \/tmp each hold at most that much\)/,
      );
      expect(result.problems[0]?.message ?? '').not.toMatch(/^wrote-it$/m);
    }
    // What it wrote never reached the host's disk: the folder it was given is left as it was.
    expect(largest).toBeLessThan(MiB);
  });

  it('names the disk limit when Node, not the shell, finds the disk full (ENOSPC)', async () => {
    const result = await run(
      `node -e "for (let i = 0; ; i++) require('fs').writeFileSync('fill-' + i, Buffer.alloc(8 << 20, 1))"`,
    );
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/wrote more than 64 MiB/);
  });

  it('runs as an unprivileged user who can write the checkout', async () => {
    const result = await run('touch docs/new.md && id -u && id -un; exit 1');
    const output = result.problems[0]?.message ?? '';
    expect(output).toMatch(/\n65534\nnobody$/);
    expect(output).not.toMatch(/Permission denied|Read-only/);
  });
});
