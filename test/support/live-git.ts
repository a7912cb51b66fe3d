import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The pids of the git processes running `subcommand` in `dir`, read from /proc. A killed process
 * that is not reaped yet (a zombie) has an empty command line, so it is not counted.
 */
export function liveGits(dir: string, subcommand: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!/(^|\/)git$/.test(argv[0] ?? '') || !argv.includes(subcommand)) continue;
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) pids.push(Number(entry));
    } catch {
      // The process ended while we read it.
    }
  }
  return pids;
}

/** Waits until `liveGits(dir, subcommand)` has `count` entries (or 10 s pass) and returns them. */
export async function waitForGits(dir: string, subcommand: string, count: number): Promise<number[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const pids = liveGits(dir, subcommand);
    if (pids.length === count || Date.now() > until) return pids;
    await sleep(20);
  }
}
