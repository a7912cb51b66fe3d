/**
 * Keeps the database-wide gauges (`agentjobs_jobs`, `agentjobs_jobs_queued`) fresh on the
 * background loop, rather than reading the database when Prometheus scrapes: the database then
 * sees one small read every few seconds per process whatever the number of scrapers, and a scrape
 * never waits on the database (or fails while it is away: the gauges keep their last values).
 */
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/index.js';
import type { Store } from '../store/store.js';
import { type BackgroundLoop, backgroundLoop } from './loop.js';

/** How often the counts are read again. */
const JOB_COUNTS_EVERY_MS = 5_000;

export function jobCountLoop(options: {
  store: Pick<Store, 'stats'>;
  metrics: Metrics;
  logger: Logger;
  everyMs?: number;
}): BackgroundLoop {
  const { store, metrics } = options;
  return backgroundLoop({
    name: 'counting jobs for /metrics',
    logger: options.logger,
    pollMs: options.everyMs ?? JOB_COUNTS_EVERY_MS,
    pass: async () => {
      metrics.setJobCounts(await store.stats.jobCounts());
      return undefined;
    },
  });
}
