import type { JobCounts, Metrics } from './index.js';

export interface JobCountRefreshOptions {
  metrics: Metrics;
  /** Reads the counts from the database (`store.stats.jobCounts`). */
  read: () => Promise<JobCounts>;
  /** How often; default five seconds. */
  intervalMs?: number;
  /** Told once per outage when a read fails; the gauges keep their last values meanwhile. */
  onError?: (error: unknown) => void;
}

/**
 * Keeps the database-wide gauges (`agentjobs_jobs`, `agentjobs_jobs_queued`) fresh with a timer,
 * rather than reading the database when Prometheus scrapes: the database then sees one small read
 * every few seconds per process whatever the number of scrapers or how often they come, and a
 * scrape never waits on the database (or fails while it is away). A read still running when the
 * timer fires is not doubled. The timer does not keep the process alive. Returns the stop function.
 */
export function startJobCountRefresh(options: JobCountRefreshOptions): () => void {
  const { metrics, read, intervalMs = 5_000, onError } = options;
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  const refresh = async () => {
    try {
      metrics.setJobCounts(await read());
      failing = false;
    } catch (error) {
      if (!failing && !stopped) onError?.(error);
      failing = true;
    }
    if (!stopped) {
      timer = setTimeout(refresh, intervalMs);
      timer.unref();
    }
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
