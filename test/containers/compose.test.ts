/**
 * `podman-compose up` of deploy/compose.yaml, as docs/deploy.md tells an operator to run it: an env
 * file next to it, the worker's control groups delegated; a demo-model job completes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseImages, buildImage, delegateCgroup, Made, podman, ROOT, waitForOk } from './podman.js';

const run = promisify(execFile);
const project = `agentjobs-compose-${process.pid}`;
const image = 'localhost/agentjobs:compose-test';
const made = new Made();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-compose-'));
let environment: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  const { postgres } = await baseImages();
  await buildImage(image);
  const cgroup = `${project}-worker`;
  made.cgroups.add(cgroup);
  delegateCgroup(cgroup);
  // A copy of deploy/, so that the env file an operator writes there is this run's.
  fs.cpSync(path.join(ROOT, 'deploy'), folder, { recursive: true });
  const secrets = [
    'POSTGRES_PASSWORD=a-compose-test-password',
    'AGENTJOBS_SECRET_KEY=a-compose-test-secret-key-of-32-characters',
    'AGENTJOBS_ADMIN_PASSWORD=a-long-enough-password',
    'AGENTJOBS_MODEL=demo',
  ];
  fs.writeFileSync(path.join(folder, '.env'), `${secrets.join('\n')}\n`);
  environment = {
    ...process.env,
    POSTGRES_PASSWORD: 'a-compose-test-password',
    POSTGRES_IMAGE: postgres,
    AGENTJOBS_IMAGE: image,
    AGENTJOBS_WORKER_CGROUP: cgroup,
    AGENTJOBS_PORT: '18480',
  };
});
afterAll(async () => {
  await compose('down', '--volumes').catch(() => {});
  // podman-compose 1.0 leaves the network it made.
  made.networks.add(`${project}_default`);
  await made.cleanup();
  fs.rmSync(folder, { recursive: true, force: true });
});

function compose(...args: string[]) {
  return run(
    'podman-compose',
    ['--project-name', project, '--file', path.join(folder, 'compose.yaml'), ...args],
    {
      cwd: folder,
      env: environment,
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

describe('podman-compose up of deploy/compose.yaml', () => {
  it('runs PostgreSQL, migrate, api and worker, and a demo-model job completes', async () => {
    await compose('up', '--detach');
    const url = 'http://127.0.0.1:18480';
    await waitForOk(`${url}/readyz`, 180_000);
    const worker = (await podman(['ps', '--format', '{{.Names}}']))
      .split('\n')
      .find((name) => name.startsWith(`${project}_worker`));
    expect(worker).toBeTruthy();
    // The sample repository is made where the worker reads it: its data volume.
    const quickstart = JSON.parse(
      await podman([
        'exec',
        worker as string,
        'node',
        '/app/dist/cli/main.js',
        'quickstart',
        '--demo',
        '--json',
      ]),
    );
    const headers = { authorization: `Bearer ${quickstart.key}`, 'content-type': 'application/json' };
    const base = `${url}/v2/agent/${quickstart.project.id}/job`;
    const created = await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Add a page about syncing notes offline' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    let job: { status: string; prLink: string | null } = { status: 'active', prLink: null };
    for (let attempt = 0; attempt < 600 && job.status === 'active'; attempt++) {
      await sleep(250);
      job = (await (await fetch(`${base}/${id}`, { headers })).json()) as typeof job;
    }
    expect(job.status).toBe('completed');
    expect(job.prLink).toBeTruthy();
    // The worker's sandbox works inside compose's settings.
    const status = await podman([
      'exec',
      worker as string,
      'node',
      '--input-type=module',
      '-e',
      "const { sandboxStatus } = await import('/app/dist/checks/sandbox.js'); console.log(JSON.stringify(await sandboxStatus({ unlimited: false })));",
    ]);
    expect(JSON.parse(status)).toMatchObject({ available: true, reason: null });
  });
});
