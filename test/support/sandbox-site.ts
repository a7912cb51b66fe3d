/** What the sandbox's own tests start from: whether it runs here, and a small site to run in. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SandboxStatus, sandboxStatus } from '../../src/checks/sandbox.js';

/**
 * The sandbox's status on this machine. Where it cannot run, says that `what` is skipped, or
 * throws under AGENTJOBS_REQUIRE_SANDBOX=1 (CI), where skipping would hide a broken sandbox.
 */
export async function sandboxForTests(what: string): Promise<SandboxStatus> {
  const status = await sandboxStatus({ unlimited: false });
  if (!status.available) {
    if (process.env.AGENTJOBS_REQUIRE_SANDBOX === '1')
      throw new Error(`AGENTJOBS_REQUIRE_SANDBOX=1 but the sandbox is not available: ${status.reason}`);
    console.log(`${what} skipped: ${status.reason}`);
  }
  return status;
}

/** A temporary folder `agentjobs-<name>-…` holding a one-page site (`site/docs/index.md`); remove `root` after. */
export function siteFolder(name: string): { root: string; site: string } {
  const root = mkdtempSync(join(tmpdir(), `agentjobs-${name}-`));
  const site = join(root, 'site');
  mkdirSync(join(site, 'docs'), { recursive: true });
  writeFileSync(join(site, 'docs/index.md'), '# Home\n');
  return { root, site };
}
