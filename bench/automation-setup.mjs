// The automation set-up of docs/automations.md ("Try it on this machine"), timed from the section's
// start to the first code-change job, with the default settings: the built server of this checkout
// with the demo model, `quickstart --demo`, a product repository beside the checkout's data,
// `project context add`, `automation create --template update-docs-from-code`, the first poll that
// only learns where main stands, then a commit to the product and the wait for its job.
//
//   npm run build && node bench/automation-setup.mjs
//
// Everything runs in a fresh temporary folder; the server gets a port of its own. Prints one table,
// a row per step, and the total.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, firstLine, killedOnExit, stop } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-automation-setup-'));
const port = String(20_000 + Math.floor(Math.random() * 2_000));
const env = {
  AGENTJOBS_DATA_DIR: path.join(home, 'data'),
  AGENTJOBS_MODEL: 'demo',
  PORT: port,
  AGENTJOBS_URL: `http://127.0.0.1:${port}`,
  AGENTJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
};
for (const name of [
  'DATABASE_URL',
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'AGENTJOBS_REPOSITORY_POLL_SECONDS',
])
  delete process.env[name];
const main = path.resolve(new URL('..', import.meta.url).pathname, 'dist/cli/main.js');
const git = (...args) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@example.com', ...args]);
const seconds = (from) => ((performance.now() - from) / 1000).toFixed(1);
const steps = [];
const step = async (name, work) => {
  const started = performance.now();
  const result = await work();
  steps.push([name, seconds(started)]);
  return result;
};

console.log(`# ${machine()}, load average ${os.loadavg()[0].toFixed(1)} at start\n`);
const server = killedOnExit(
  spawn(process.execPath, [main, 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }),
);
try {
  await firstLine(server, /listening/);
  const total = performance.now();
  const start = await step('quickstart --demo', () => cli(['quickstart', '--demo'], env));
  const product = path.join(home, 'product');
  await step('product repository and context add', () => {
    git('init', '-q', '-b', 'main', product);
    fs.mkdirSync(path.join(product, 'src'));
    fs.writeFileSync(path.join(product, 'src/cli.ts'), "export const flags = ['--verbose'];\n");
    git('-C', product, 'add', '.');
    git('-C', product, 'commit', '-qm', 'First version');
    return cli(['project', 'context', 'add', start.project.id, '--name', 'product', '--repo', product], env);
  });
  const apiEnv = { ...env, AGENTJOBS_API_KEY: start.key, AGENTJOBS_PROJECT: start.project.id };
  await step('automation create --template', () =>
    cli(['automation', 'create', '--template', 'update-docs-from-code'], apiEnv),
  );
  const api = `${env.AGENTJOBS_URL}/v2/agent/${start.project.id}`;
  const headers = { authorization: `Bearer ${start.key}` };
  // The first look only learns where main stands: the doc says to wait one poll (3 seconds).
  await step('wait one poll, as the doc says', () => new Promise((resolve) => setTimeout(resolve, 3_500)));
  await step('commit → code-change job', async () => {
    fs.writeFileSync(path.join(product, 'src/cli.ts'), "export const flags = ['--verbose', '--dry-run'];\n");
    git('-C', product, 'commit', '-qam', 'Add the --dry-run flag');
    for (;;) {
      const listed = await (await fetch(`${api}/job`, { headers })).json();
      const jobs = listed.jobs ?? [];
      if (jobs.some((job) => job.trigger?.type === 'code_change')) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  steps.push(['total (section start → first code-change job)', seconds(total)]);
  printTable(['step', 'seconds'], steps);
} finally {
  await stop(server);
  fs.rmSync(home, { recursive: true, force: true });
}
