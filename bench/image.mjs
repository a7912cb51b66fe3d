// The image (`npm run bench:image`, as root, with podman): its build time (the Node bases made
// beforehand and cached; no layer cache), its size, how long a container takes from start to a 200 from /readyz, and jobs per
// second of the demo model with 1, 2 and 4 worker containers on one PostgreSQL container, in one
// run so that the ratios hold on a busy machine.
//   node --import tsx bench/image.mjs [--jobs 24] [--skip-build]
import { parseArgs } from 'node:util';
import {
  baseFlags,
  baseImages,
  buildImage,
  Made,
  podman,
  publishedPort,
  sandboxFlags,
  ulimits,
  waitForOk,
} from '../test/containers/podman.ts';
import { machine, printTable } from './table.mjs';

const { values } = parseArgs({
  options: { jobs: { type: 'string', default: '24' }, 'skip-build': { type: 'boolean', default: false } },
});
const jobs = Number(values.jobs);
const prefix = `agentjobs-bench-${process.pid}`;
const image = 'localhost/agentjobs:bench';
const made = new Made();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const timed = async (work) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

try {
  const { postgres: postgresImage } = await baseImages();
  const rows = [];
  // --skip-build: the image of this build context as the container tests left it (the build takes
  // long on a busy machine; its time is then not measured).
  if (values['skip-build']) await buildImage(image);
  else
    rows.push([
      'image build, no layer cache',
      seconds(await timed(() => buildImage(image, { noCache: true }))),
    ]);
  const size = Number(await podman(['image', 'inspect', image, '--format', '{{.Size}}']));
  rows.push(['image size', `${(size / 1e6).toFixed(0)} MB`]);

  const password = 'a-bench-only-password';
  const network = `${prefix}-net`;
  made.networks.add(network);
  made.volumes.add(`${prefix}-data`);
  await podman(['network', 'create', network]);
  const db = `${prefix}-postgres`;
  made.containers.add(db);
  await podman([
    'run',
    '--detach',
    '--name',
    db,
    '--runtime',
    'runc',
    ...ulimits(),
    '--network',
    network,
    '-e',
    'POSTGRES_USER=agentjobs',
    '-e',
    `POSTGRES_PASSWORD=${password}`,
    '-e',
    'POSTGRES_DB=agentjobs',
    postgresImage,
  ]);
  const common = () => [
    ...baseFlags(),
    '--network',
    network,
    '-v',
    `${prefix}-data:/var/lib/agentjobs`,
    '-e',
    `DATABASE_URL=postgres://agentjobs:${password}@${db}:5432/agentjobs`,
    '-e',
    'AGENTJOBS_SECRET_KEY=a-bench-only-secret-key-of-32-characters-or-more',
    '-e',
    'AGENTJOBS_ADMIN_PASSWORD=a-long-enough-password',
    '-e',
    'AGENTJOBS_PROJECT_CONCURRENCY=64',
    '-e',
    'AGENTJOBS_MAX_ACTIVE_JOBS=0',
    '-e',
    'AGENTJOBS_RATE_LIMIT_PER_HOUR=100000',
    '-e',
    'LOG_LEVEL=warn',
  ];
  let count = 0;
  const cli = async (...args) => {
    const name = `${prefix}-cli-${count++}`;
    made.containers.add(name);
    return podman(['run', '--name', name, ...common(), image, ...args]);
  };
  for (let attempt = 0; ; attempt++) {
    try {
      await cli('migrate');
      break;
    } catch (error) {
      if (attempt > 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const quickstart = JSON.parse(await cli('quickstart', '--demo', '--json'));

  // Start to ready: three api containers, one after another; the median.
  const starts = [];
  let url = '';
  for (let i = 0; i < 3; i++) {
    const name = `${prefix}-api-${i}`;
    made.containers.add(name);
    const took = await timed(async () => {
      await podman(['run', '--detach', '--name', name, ...common(), '-p', '127.0.0.1::8080', image, 'api']);
      url = `http://127.0.0.1:${await publishedPort(name, 8080)}`;
      await waitForOk(`${url}/readyz`, 120_000);
    });
    starts.push(took);
    if (i < 2) await podman(['rm', '--force', '--time', '5', name]);
  }
  starts.sort((a, b) => a - b);
  rows.push(['container start to /readyz 200 (median of 3)', seconds(starts[1])]);

  const headers = { authorization: `Bearer ${quickstart.key}`, 'content-type': 'application/json' };
  const base = `${url}/v2/agent/${quickstart.project.id}/job`;
  const throughput = [];
  for (const workers of [1, 2, 4]) {
    const names = [];
    for (let i = 0; i < workers; i++) {
      const name = `${prefix}-worker-${workers}-${i}`;
      made.containers.add(name);
      made.cgroups.add(name);
      names.push(name);
      await podman(['run', '--detach', '--name', name, ...common(), ...sandboxFlags(name), image, 'worker']);
    }
    // Let the workers start before the clock does: this measures jobs, not starts.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const took = await timed(async () => {
      const ids = [];
      for (let i = 0; i < jobs; i++) {
        const response = await fetch(base, {
          method: 'POST',
          headers,
          body: JSON.stringify({ prompt: `Add page ${workers}-${i}` }),
        });
        if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
        ids.push((await response.json()).id);
      }
      for (const id of ids) {
        for (;;) {
          const job = await (await fetch(`${base}/${id}`, { headers })).json();
          if (job.status === 'completed') break;
          if (job.status !== 'active') throw new Error(`job ${id}: ${job.status}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    });
    throughput.push(jobs / (took / 1000));
    await podman(['rm', '--force', '--time', '10', ...names]);
  }
  for (const [i, workers] of [1, 2, 4].entries())
    rows.push([
      `jobs per second, ${workers} worker container${workers > 1 ? 's' : ''} (${jobs} demo jobs)`,
      `${throughput[i].toFixed(2)} (× ${(throughput[i] / throughput[0]).toFixed(2)})`,
    ]);
  console.log(machine());
  printTable(['measure', 'value'], rows);
} finally {
  await made.cleanup();
}
