/**
 * A project environment against a hostile model, end to end on each database (issue 28): the setup
 * installs a package from a `file:` dependency with no registry, the check command uses it offline,
 * and a script the model wrote tries, from `run_command` and from the check command, the network,
 * the service's own port, its data directory, its environment (a secret set on the server) and each
 * limit of the sandbox (processes, memory, disk, time). Each is refused or stopped, with a message
 * that says which; the job itself goes on and is recorded in the store.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { useScriptedServer } from '../support/scripted-server.js';

const status = await sandboxStatus({ unlimited: false });
if (!status.available && process.env.AGENTJOBS_REQUIRE_SANDBOX === '1')
  throw new Error(`AGENTJOBS_REQUIRE_SANDBOX=1 but the sandbox is not available: ${status.reason}`);

/** A variable of the server's own environment, of no known key shape: only its redactor knows it. */
const SECRET = 'compat-secret-hostile-0123456789abcdef';
const TIMEOUT_SECONDS = 5;

/** The repository: a package of its own, installed by the setup from a file: dependency. */
const FILES = {
  'index.md': '# Home\n',
  'package.json': `${JSON.stringify({ name: 'site', private: true, dependencies: { 'probe-kit': 'file:vendor/probe-kit' } }, null, 2)}\n`,
  'vendor/probe-kit/package.json': `${JSON.stringify({ name: 'probe-kit', version: '1.0.0', bin: { 'probe-kit': 'cli.js' } }, null, 2)}\n`,
  'vendor/probe-kit/cli.js': '#!/usr/bin/env node\nconsole.log("probe-kit 1.0.0 ready");\n',
};
const SETUP = 'npm install --offline --install-links --no-audit --no-fund --no-package-lock';
/** The check command: the installed package, then the model's probe in the mode it chose. */
const CHECK = 'node_modules/.bin/probe-kit && node probe.mjs "$(cat probe-mode)"';

/** What the model writes: a script that tries to get out, one way per mode. */
const probe = (ports: { server: string; model: string }, dataDir: string) => `
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
const mode = process.argv[2];
const reach = (port) => new Promise((done) => {
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('connect', () => { socket.destroy(); done('REACHED'); });
  socket.on('error', (error) => done(error.code));
});
if (mode === 'escape') {
  console.log('network:', await reach(${ports.model}));
  console.log('service:', await reach(${ports.server}));
  try { console.log('data:', readdirSync(${JSON.stringify(dataDir)}).join(',') || 'EMPTY'); }
  catch (error) { console.log('data:', error.code); }
  const leaked = JSON.stringify(process.env).includes(${JSON.stringify(SECRET.slice(0, 20))});
  console.log('secret:', leaked ? 'LEAKED' : 'absent');
  process.exit(2);
}
if (mode === 'processes') for (;;) await new Promise((done) => spawn('sleep', ['60']).on('spawn', done).on('error', done));
if (mode === 'memory') { const kept = []; for (;;) kept.push(Buffer.alloc(16 * 1024 * 1024, 1)); }
if (mode === 'disk') for (let index = 0; ; index++) writeFileSync('fill-' + index, Buffer.alloc(8 * 1024 * 1024, 1));
if (mode === 'time') setInterval(() => {}, 1000);
`;

type Event = { type: string; data: Record<string, unknown> };

describe.each(testDialects())('a hostile model in a project environment on %s', (dialect) => {
  const scripted = useScriptedServer(() => ({
    name: `environment-hostile-${dialect}`,
    dialect,
    files: FILES,
    env: {
      OPENAI_COMPATIBLE_API_KEY: SECRET,
      AGENTJOBS_CHECK_REPAIR_ROUNDS: '0',
      AGENTJOBS_CHECK_PROCESSES: '32',
      AGENTJOBS_CHECK_MEMORY_MB: '128',
      AGENTJOBS_CHECK_DISK_MB: '64',
    },
    project: [
      '--no-built-in-checks',
      '--setup-command',
      SETUP,
      '--check-command',
      CHECK,
      '--check-timeout',
      String(TIMEOUT_SECONDS),
      '--on-check-failure',
      'publish',
      '--agent-commands',
      'yes',
    ],
  }));

  const script = () =>
    probe(
      { server: new URL(scripted.server.url).port, model: new URL(scripted.model.url).port },
      join(scripted.dir, 'data'),
    );
  const write = (path: string, content: string) => ({
    toolCalls: [{ name: 'write_file', input: { path, content } }],
  });
  const command = (text: string) => ({ toolCalls: [{ name: 'run_command', input: { command: text } }] });

  async function runJob(prompt: string) {
    const { job: created } = await scripted.api.call('POST', '/job', { prompt });
    const job: Job = await scripted.api.waitUntil(
      created.id,
      (each: Job) => each.status !== 'active',
      120_000,
    );
    const target = scripted.target();
    const response = await fetch(`${target.url}/v2/agent/${target.projectId}/job/${job.id}/events`, {
      headers: { authorization: `Bearer ${target.key}` },
    });
    const { events } = (await response.json()) as { events: Event[] };
    return { job, events };
  }
  const commandResults = (events: Event[]) =>
    events
      .filter((event) => event.type === 'tool_result' && event.data.tool === 'run_command')
      .map((event) => String(event.data.summary));
  const checkOutput = (job: Job) => JSON.stringify(job.checks);

  it.skipIf(!status.available)(
    'contains every escape and limit a script tries from run_command, then from the check command',
    async () => {
      scripted.model.setScript([
        write('probe.mjs', script()),
        command('node_modules/.bin/probe-kit && node probe.mjs escape'),
        command('node probe.mjs processes'),
        command('node probe.mjs memory'),
        command('node probe.mjs disk'),
        command('node probe.mjs time'),
        write('probe-mode', 'escape'),
        { text: 'Probed' },
      ]);
      const { job, events } = await runJob('Probe the sandbox');
      expect(job).toMatchObject({ status: 'completed', checks: { status: 'failed' } });
      expect(events.filter((event) => event.type === 'setup').map((event) => event.data.status)).toEqual([
        'built',
      ]);

      const [escaped, processes, memory, disk, time] = commandResults(events);
      expect(escaped).toBe(
        'Exit code: 2. The command failed (exit code 2). It tried to reach the network, which the sandbox blocks: the command must work offline.',
      );
      expect(processes).toBe(
        'Exit code: none. The command started more than 32 processes at once and was stopped, with every process it started.',
      );
      expect(memory).toMatch(/^Exit code: none\. The command used more than 128 MiB of memory/);
      expect(disk).toMatch(/^Exit code: \S+ The command wrote more than 64 MiB \(the checkout and \/tmp/);
      expect(time).toBe(
        `Exit code: none. The command did not finish within ${TIMEOUT_SECONDS} s and was stopped, with every process it started.`,
      );
      // What the model read of the escape: the installed package ran offline, nothing got out.
      const read = scripted.model.requests.map((request) => JSON.stringify(request.body)).join('\n');
      expect(read).toContain('probe-kit 1.0.0 ready');
      expect(read).toMatch(/network: E(CONNREFUSED|NETUNREACH)/);
      expect(read).toMatch(/service: E(CONNREFUSED|NETUNREACH)/);
      expect(read).toContain('data: ENOENT');
      expect(read).toContain('secret: absent');
      expect(read).not.toMatch(/(network|service): REACHED|secret: LEAKED|data: [^E]/);

      // The check command, the same script: the package offline, and the same walls.
      const checked = checkOutput(job);
      expect(checked).toContain('probe-kit 1.0.0 ready');
      expect(checked).toMatch(/network: E(CONNREFUSED|NETUNREACH)/);
      expect(checked).toMatch(/service: E(CONNREFUSED|NETUNREACH)/);
      expect(checked).toContain('data: ENOENT');
      expect(checked).toContain('secret: absent');
      expect(JSON.stringify(events)).not.toContain(SECRET);
    },
  );

  it.skipIf(!status.available)(
    'stops the check command at each limit, naming it, on the cached environment',
    async () => {
      const messages: Record<string, RegExp> = {
        processes: /started more than 32 processes at once and was stopped/,
        memory: /used more than 128 MiB of memory/,
        disk: /wrote more than 64 MiB/,
        time: new RegExp(`did not finish within ${TIMEOUT_SECONDS} s and was stopped`),
      };
      for (const [mode, message] of Object.entries(messages)) {
        scripted.model.setScript([
          write('probe.mjs', script()),
          write('probe-mode', mode),
          { text: `Probe ${mode}` },
        ]);
        const { job, events } = await runJob(`Probe ${mode}`);
        expect(job, mode).toMatchObject({ status: 'completed', checks: { status: 'failed' } });
        expect(events.find((event) => event.type === 'setup')?.data.status, mode).toBe('reused');
        expect(checkOutput(job), mode).toMatch(message);
      }
    },
  );
});
