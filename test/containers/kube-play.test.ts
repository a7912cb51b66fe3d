/**
 * `podman kube play` of the api and worker Deployments of deploy/kubernetes (the kube-play overlay:
 * the same pods without what only a cluster has) against a PostgreSQL container: a demo-model job
 * completes. The image and the bases are image.test.ts's, built again here from their caches.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseImages, buildImage, Made, podman, ROOT, ulimits } from './podman.js';

const prefix = `agentjobs-kube-${process.pid}`;
const overlay = path.join(ROOT, 'deploy/kubernetes/overlays/kube-play');
const made = new Made();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-kube-'));
let postgresImage = '';
let played = '';

/**
 * kube play has no --ulimit: give podman a containers.conf of this run with the limits this host
 * lets runc set (see `ulimits`), and runc.
 */
function containersConf(): string {
  const limits = ulimits().filter((_, index) => index % 2 === 1);
  const file = path.join(folder, 'containers.conf');
  fs.writeFileSync(
    file,
    `[containers]\ndefault_ulimits = [${limits.map((limit) => JSON.stringify(limit)).join(', ')}]\n\n[engine]\nruntime = "runc"\n`,
  );
  return file;
}

beforeAll(async () => {
  ({ postgres: postgresImage } = await baseImages());
  // The manifests name the image `agentjobs`: podman finds it as localhost/agentjobs:latest.
  await buildImage('localhost/agentjobs:latest');
});
afterAll(async () => {
  if (played)
    await promisify(execFile)('podman', ['kube', 'down', played], {
      env: { ...process.env, CONTAINERS_CONF: containersConf() },
    }).catch(() => {});
  await made.cleanup();
  fs.rmSync(folder, { recursive: true, force: true });
});

describe.runIf(fs.existsSync(overlay))('podman kube play of deploy/kubernetes', () => {
  it('runs the api and worker pods against PostgreSQL, and a demo-model job completes', async () => {
    const network = `${prefix}-net`;
    made.networks.add(network);
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
      'POSTGRES_USER=postgres',
      '-e',
      'POSTGRES_HOST_AUTH_METHOD=trust',
      postgresImage,
    ]);

    const { stdout } = await promisify(execFile)('kubectl', ['kustomize', overlay], {
      maxBuffer: 16 * 1024 * 1024,
    });
    // The overlay's database is a pod named agentjobs-postgres; here it is this run's container.
    expect(stdout).toContain('@agentjobs-postgres:5432/');
    // The manifests name the image `agentjobs:<version>`: podman finds it as localhost/agentjobs:<version>.
    for (const [, reference] of stdout.matchAll(/^\s*image: (\S+)$/gm))
      await podman(['tag', 'localhost/agentjobs:latest', `localhost/${reference}`]);
    played = path.join(folder, 'play.yaml');
    fs.writeFileSync(played, stdout.replaceAll('@agentjobs-postgres:5432/', `@${postgres}:5432/`));
    const env = { ...process.env, CONTAINERS_CONF: containersConf() };
    await promisify(execFile)(
      'podman',
      [
        'kube',
        'play',
        '--network',
        network,
        '--seccomp-profile-root',
        path.join(ROOT, 'deploy/seccomp'),
        played,
      ],
      { env, timeout: 300_000 },
    );
    const names = (await podman(['ps', '--format', '{{.Names}}'])).split('\n');
    const api = names.find((name) => /^agentjobs-api-pod-/.test(name));
    const worker = names.find((name) => /^agentjobs-worker-pod-/.test(name));
    expect(api).toBeTruthy();
    expect(worker).toBeTruthy();
    const exec = (container: string, ...args: string[]) =>
      podman(['exec', container, 'node', '/app/dist/cli/main.js', ...args], 120_000);

    // The api migrates at start; ask until it is ready.
    for (let attempt = 0; ; attempt++) {
      const ready = await podman([
        'exec',
        api as string,
        'node',
        '-e',
        "fetch('http://127.0.0.1:8080/readyz').then((r) => console.log(r.status), () => console.log(0))",
      ]);
      if (ready === '200') break;
      if (attempt > 120) throw new Error(`the api pod is not ready: ${ready}`);
      await sleep(1000);
    }
    // The sample repository is made where the worker reads it: its own data directory.
    const quickstart = JSON.parse(await exec(worker as string, 'quickstart', '--demo', '--json'));
    const created = JSON.parse(
      await podman(
        [
          'exec',
          '-e',
          'AGENTJOBS_URL=http://127.0.0.1:8080',
          '-e',
          `AGENTJOBS_API_KEY=${quickstart.key}`,
          '-e',
          `AGENTJOBS_PROJECT=${quickstart.project.id}`,
          api as string,
          'node',
          '/app/dist/cli/main.js',
          'job',
          'create',
          'Add a page about syncing notes offline',
          '--wait',
          '--json',
        ],
        300_000,
      ),
    );
    expect(created).toMatchObject({ status: 'completed', error: null });
    expect(created.prLink).toBeTruthy();
  });
});
