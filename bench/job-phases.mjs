// One job of bench/job.mjs from POST to its end, and its phases from its events and the timed model calls.
import { api, jobEvents } from './job-api.mjs';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** POSTs a job and waits for its end; returns the job, its events and the POST's send time. */
export async function runJob(server, project, prompt) {
  const postAt = now();
  const created = await api(server.address, project, 'POST', '/job', { prompt });
  let job = created;
  while (job.status === 'active') {
    await sleep(10);
    job = await api(server.address, project, 'GET', `/job/${created.id}`);
  }
  if (job.status !== 'completed')
    throw new Error(`job ${job.id} ended ${job.status}: ${JSON.stringify(job.error)}`);
  const events = await jobEvents(server.address, project, job.id);
  return { postAt, job, events };
}

/** The figures of one job (ms). Model calls are those the proxy saw between its POST and its end. */
export function measure({ postAt, job, events }, calls) {
  const at = (predicate, last = false) => {
    const found = last ? events.findLast(predicate) : events.find(predicate);
    if (!found) throw new Error(`job ${job.id}: event missing (${predicate})`);
    return Date.parse(found.at);
  };
  const claimedAt = at((e) => e.type === 'phase' && e.data.phase === 'preparing');
  const runningAt = at((e) => e.type === 'phase' && e.data.phase === 'running');
  const commitAt = at((e) => e.type === 'commit');
  const prAt = at((e) => e.type === 'pull_request');
  const createdAt = Date.parse(job.createdAt);
  const completedAt = Date.parse(job.completedAt);
  const mine = calls.filter((call) => call.start >= postAt && call.end <= completedAt + 1);
  if (mine.length !== 2) throw new Error(`job ${job.id}: ${mine.length} model calls, expected 2`);
  const model = mine.reduce((sum, call) => sum + (call.end - call.start), 0);
  const answeredAt = mine.at(-1).end;
  return {
    pickup: claimedAt - postAt,
    pickupServer: claimedAt - createdAt,
    workspace: runningAt - claimedAt,
    loop: answeredAt - runningAt - model,
    publish: prAt - answeredAt,
    commit: commitAt - answeredAt,
    push: prAt - commitAt,
    finish: completedAt - prAt,
    model,
    overhead: completedAt - postAt - model,
    total: completedAt - postAt,
  };
}
