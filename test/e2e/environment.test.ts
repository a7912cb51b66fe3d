/**
 * A project's environment end to end (issue 28), through the real server, CLI, bubblewrap and git:
 * the setup command runs once per lockfiles and is reused, rebuilt when a lockfile changes, and a
 * failure fails the job with `setup_failed`; the check command and the agent's `run_command` see
 * what it installed, offline, without the service's secrets, within their call budget.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import type { Job } from '../../src/domain/job.js';
import { createProjectAndKey, git, type JobTarget, jobApi } from '../support/e2e.js';
import { useScriptedServer } from '../support/scripted-server.js';

const status = await sandboxStatus({ unlimited: false });
if (!status.available && process.env.AGENTJOBS_REQUIRE_SANDBOX === '1')
  throw new Error(`AGENTJOBS_REQUIRE_SANDBOX=1 but the sandbox is not available: ${status.reason}`);

/** What `npm ci` would leave, made without a registry: a tool in node_modules/.bin. */
const SETUP =
  'mkdir -p node_modules/.bin && printf \'#!/bin/sh\\necho tool-ok "$@"\\n\' > node_modules/.bin/tool && chmod +x node_modules/.bin/tool && echo installed';
/** The service's provider key: a value of no known key shape, so only the service's redactor knows it. */
const SECRET = 'compat-secret-environment-0123456789abcdef';

type Event = { type: string; data: Record<string, unknown> };

describe.skipIf(!status.available)('a project environment end to end', () => {
  let withCommands: JobTarget;
  let withoutCommands: JobTarget;
  let failing: JobTarget;
  const scripted = useScriptedServer({
    name: 'environment-e2e',
    files: { 'package-lock.json': '{"lockfileVersion":3}\n', 'index.md': '# Home\n' },
    // A secret of the service: no command may see it.
    env: { AGENTJOBS_MAX_COMMANDS: '3', OPENAI_COMPATIBLE_API_KEY: SECRET },
    project: false,
  });
  beforeAll(async () => {
    const base = [
      '--no-built-in-checks',
      '--setup-command',
      SETUP,
      '--check-command',
      'node_modules/.bin/tool check',
    ];
    const url = scripted.server.url;
    withCommands = {
      url,
      ...(await createProjectAndKey(scripted.env, scripted.repo, [...base, '--agent-commands', 'yes'])),
    };
    withoutCommands = { url, ...(await createProjectAndKey(scripted.env, scripted.repo, base)) };
    failing = {
      url,
      ...(await createProjectAndKey(scripted.env, scripted.repo, [
        '--setup-command',
        `echo "npm ERR! could not install ${SECRET}"; exit 7`,
      ])),
    };
  });

  const finished = (job: Job) => job.status !== 'active';
  const environments = (projectId: string) =>
    readdirSync(join(scripted.dir, 'data', 'environments', projectId)).filter(
      (name) => !name.startsWith('.'),
    );

  async function runJob(target: JobTarget, prompt: string) {
    const { call, waitUntil } = jobApi(() => target);
    const { job: created } = await call('POST', '/job', { prompt });
    const job = await waitUntil(created.id, finished, 60_000);
    const response = await fetch(`${target.url}/v2/agent/${target.projectId}/job/${job.id}/events`, {
      headers: { authorization: `Bearer ${target.key}` },
    });
    const { events } = (await response.json()) as { events: Event[] };
    return {
      job,
      events,
      setup: events.filter((event) => event.type === 'setup').map((event) => event.data),
    };
  }

  const command = (text: string) => ({ toolCalls: [{ name: 'run_command', input: { command: text } }] });
  const results = (events: Event[]) =>
    events
      .filter((event) => event.type === 'tool_result' && event.data.tool === 'run_command')
      .map((event) => event.data);

  it('runs the setup once; the check command and run_command use what it installed, offline and without secrets', async () => {
    const port = new URL(scripted.model.url).port;
    scripted.model.setScript([
      command('node_modules/.bin/tool hello'),
      command(
        `env; node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('reach' + 'ed')).on('error', (e) => { console.log('network', e.code); process.exit(3) })"`,
      ),
      { toolCalls: [{ name: 'write_file', input: { path: 'index.md', content: '# Home\n\nMore.\n' } }] },
      { text: 'Expand the home page' },
    ]);
    const { job, events, setup } = await runJob(withCommands, 'Expand the home page');

    expect(job).toMatchObject({ status: 'completed', error: null, checks: { status: 'passed' } });
    expect(setup).toEqual([
      expect.objectContaining({ status: 'built', output: expect.stringContaining('installed') }),
    ]);
    const [hello, probe] = results(events);
    expect(hello).toMatchObject({ ok: true, summary: 'Exit code: 0.' });
    const answers = scripted.model.requests.map((request) => JSON.stringify(request.body)).join('\n');
    expect(answers).toContain('tool-ok hello');
    expect(probe).toMatchObject({ summary: expect.stringContaining('Exit code: 3.') });
    expect(answers).toMatch(/network E(CONNREFUSED|NETUNREACH)/);
    expect(answers).not.toContain('reached');
    expect(answers).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(environments(withCommands.projectId)).toHaveLength(1);
  });

  it('reuses the environment for a second job on the same base', async () => {
    scripted.model.setScript([command('node_modules/.bin/tool again'), { text: 'Nothing to change' }]);
    const before = environments(withCommands.projectId);
    const { job, events, setup } = await runJob(withCommands, 'Look again');
    expect(job.status).toBe('completed');
    expect(setup).toEqual([expect.objectContaining({ status: 'reused', output: '' })]);
    expect(results(events)[0]).toMatchObject({ ok: true, summary: 'Exit code: 0.' });
    expect(environments(withCommands.projectId)).toEqual(before);
  });

  it('rebuilds it when a lockfile on the base changes, and removes the old one', async () => {
    const before = environments(withCommands.projectId);
    git(scripted.repo, 'checkout', '-q', 'main');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(scripted.repo, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}\n');
    git(scripted.repo, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qam', 'lock');
    scripted.model.setScript([{ text: 'Nothing to change' }]);
    const { setup } = await runJob(withCommands, 'Look once more');
    expect(setup).toEqual([expect.objectContaining({ status: 'built' })]);
    const after = environments(withCommands.projectId);
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
  });

  it('refuses run_command past AGENTJOBS_MAX_COMMANDS calls in a run', async () => {
    scripted.model.setScript([
      command('true'),
      command('true'),
      command('true'),
      command('true'),
      { text: 'Done' },
    ]);
    const { events } = await runJob(withCommands, 'Run things');
    const outcomes = results(events).map((result) => result.ok);
    expect(outcomes).toEqual([true, true, true, false]);
    expect(results(events)[3]?.summary).toContain('at most 3 commands');
  });

  it('gives no run_command tool where the project does not allow commands', async () => {
    scripted.model.requests.length = 0;
    scripted.model.setScript([{ text: 'Nothing to change' }]);
    const { job } = await runJob(withoutCommands, 'Look');
    expect(job.status).toBe('completed');
    const body = scripted.model.requests[0]?.body as { tools: { function: { name: string } }[] };
    const tools = body.tools.map((tool) => tool.function.name);
    expect(tools).toContain('run_checks');
    expect(tools).not.toContain('run_command');
  });

  it('fails the job with setup_failed and the tail of the output, redacted', async () => {
    scripted.model.requests.length = 0;
    scripted.model.setScript([{ text: 'never asked' }]);
    const { job, setup } = await runJob(failing, 'Anything');
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('setup_failed');
    expect(job.error?.message).toContain('exit code 7');
    expect(job.error?.message).toContain('npm ERR! could not install');
    expect(JSON.stringify({ job, setup })).not.toContain(SECRET);
    expect(setup).toEqual([expect.objectContaining({ status: 'failed' })]);
    // The agent never ran.
    expect(scripted.model.requests).toHaveLength(0);
  });
});
