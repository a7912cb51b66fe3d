// The batches of bench/concurrency.mjs: jobs POSTed at once, waited for, and the figures of each batch.
import fs from 'node:fs';
import { api, jobEvents } from './job-api.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** POSTs `count` jobs at once over the projects and waits until none is active. */
export async function runBatch(address, projects, count, label) {
  const names = Array.from({ length: count }, (_, n) => `${label}-${n}`);
  const startedAt = Date.now();
  const posted = await Promise.all(
    names.map(async (name, n) => {
      const project = projects[n % projects.length];
      const job = await api(address, project, 'POST', '/job', {
        prompt: `Add a page for this benchmark job. [bench ${name}]`,
      });
      return { name, project, id: job.id };
    }),
  );
  const waiting = new Set(posted.map((job) => job.id));
  while (waiting.size > 0) {
    await sleep(250);
    for (const project of projects) {
      const page = await api(address, project, 'GET', '/job?status=active&limit=100');
      const active = new Set(page.jobs.map((job) => job.id));
      for (const job of posted)
        if (job.project === project && waiting.has(job.id) && !active.has(job.id)) waiting.delete(job.id);
    }
  }
  return { startedAt, endedAt: Date.now(), posted };
}

/** Each job of a batch as it ended, with its events (read after the measurement, not counted in it). */
export async function collect(address, batch) {
  const jobs = [];
  for (const job of batch.posted) {
    const record = await api(address, job.project, 'GET', `/job/${job.id}`);
    const events = await jobEvents(address, job.project, job.id);
    jobs.push({ ...job, record, events });
  }
  return { ...batch, jobs };
}

/** The model's log (one JSON line per request it answered), as each job's requests in order. */
export function modelCalls(modelLog) {
  const byJob = new Map();
  if (!fs.existsSync(modelLog)) return byJob;
  for (const line of fs.readFileSync(modelLog, 'utf8').split('\n')) {
    if (!line) continue;
    const call = JSON.parse(line);
    if (!byJob.has(call.job)) byJob.set(call.job, []);
    byJob.get(call.job).push(call);
  }
  for (const calls of byJob.values()) calls.sort((a, b) => a.arrived - b.arrived);
  return byJob;
}

/** The figures of one batch; `calls` from modelCalls(), each job taking `steps` model requests. */
export function measure(batch, cpu, peaks, calls, steps) {
  const phases = { queued: [], preparing: [], step: [], publishing: [] };
  let completed = 0;
  let lastCompleted = batch.startedAt;
  const links = new Set();
  const failures = [];
  for (const job of batch.jobs) {
    const { record, events } = job;
    if (record.status !== 'completed') {
      failures.push(`${job.id} ${record.status}: ${JSON.stringify(record.error)}`);
      continue;
    }
    completed += 1;
    if (record.prLink) links.add(record.prLink);
    const completedAt = Date.parse(record.completedAt);
    lastCompleted = Math.max(lastCompleted, completedAt);
    const phaseAt = (phase) =>
      Date.parse(events.findLast((e) => e.type === 'phase' && e.data.phase === phase)?.at ?? Number.NaN);
    const claimedAt = phaseAt('preparing');
    const runningAt = phaseAt('running');
    phases.queued.push(claimedAt - Date.parse(record.createdAt));
    phases.preparing.push(runningAt - claimedAt);
    const mine = calls.get(job.name) ?? [];
    let previous = runningAt;
    for (const call of mine) {
      phases.step.push(call.arrived - previous);
      previous = call.answered;
    }
    if (mine.length === steps) phases.publishing.push(completedAt - previous);
    else failures.push(`${job.id}: ${mine.length} model calls, expected ${steps}`);
  }
  const wall = lastCompleted - batch.startedAt;
  return { jobs: batch.jobs.length, completed, prs: links.size, failures, wall, phases, cpu, peaks };
}
