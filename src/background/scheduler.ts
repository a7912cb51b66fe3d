/**
 * The scheduler: runs the automations whose schedule's time has come, in every process that runs
 * one, on the background loop. Each time runs once whatever the number of processes: a process
 * takes a time by moving the automation's `next_run_at` from that time to the next with a
 * conditional update, which only one wins. The next time is the first one after now, so a
 * scheduler that was down for several times makes one catch-up run, never one per missed time.
 * A pass runs at the earliest time due, and at least once a minute, which also finds
 * automations that other processes created or changed.
 */
import type { Config } from '../config/config.js';
import { type Automation, nextScheduleTime } from '../domain/automation.js';
import type { Logger } from '../log.js';
import { type AutomationRunDeps, runAutomation } from '../operations/automation-run.js';
import type { Store } from '../store/store.js';
import { type BackgroundLoop, backgroundLoop, type PassResult } from './loop.js';

/** Automations one pass takes at most; a full batch runs another pass at once. */
const BATCH = 50;
/** The longest wait between passes: a schedule fires within a minute of its time. */
export const SCHEDULER_POLL_MS = 60_000;

/** What a scheduler needs. */
export interface SchedulerOptions {
  store: Store;
  logger: Logger;
  config: Pick<Config, 'defaultModel' | 'limits' | 'automations'>;
  /** The longest wait between passes; a minute by default. */
  pollMs?: number;
  /** Whether a job's pull request is still open, for grouping (see `operations/automation-run.ts`). */
  pullRequestOpen?: AutomationRunDeps['pullRequestOpen'];
  /** The clock; tests move it. */
  now?: () => Date;
}

/** The scheduler of one process. */
export interface Scheduler {
  start(): Promise<void>;
  /** Runs a pass now (tests, and a change that may have moved a time closer). */
  wake(): Promise<void>;
  stop(): Promise<void>;
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, logger, config } = options;
  const pollMs = options.pollMs ?? SCHEDULER_POLL_MS;
  const now = options.now ?? (() => new Date());
  const deps: AutomationRunDeps = {
    store,
    config,
    automations: config.automations,
    log: logger,
    ...(options.pullRequestOpen ? { pullRequestOpen: options.pullRequestOpen } : {}),
  };

  /** Takes the automation's due time and runs it; false when another process took it first. */
  async function runDue(automation: Automation, at: Date): Promise<boolean> {
    const due = automation.nextRunAt;
    if (!due || automation.trigger.type !== 'schedule') return false;
    const next = nextScheduleTime(automation.trigger, at)?.toISOString() ?? null;
    if (!(await store.automations.claimScheduled(automation.id, due, next))) return false;
    try {
      const { run } = await runAutomation(deps, {
        automation,
        trigger: { type: 'schedule', source: due },
        context: { schedule: { time: due } },
        scheduledFor: due,
      });
      logger.info(
        {
          projectId: automation.projectId,
          automationId: automation.id,
          scheduledFor: due,
          outcome: run.outcome,
          reason: run.reason,
        },
        'scheduled automation ran',
      );
    } catch (error) {
      // The time is taken: running it again on the next pass could make a second job for it.
      logger.warn(
        { err: error, automationId: automation.id, scheduledFor: due },
        'scheduled automation failed',
      );
    }
    return true;
  }

  async function pass(): Promise<PassResult> {
    const at = now();
    const due = await store.automations.due(at, BATCH);
    for (const automation of due) await runDue(automation, at);
    if (due.length === BATCH) return { more: true };
    const next = await store.automations.nextDue();
    return next === null ? {} : { nextInMs: Math.max(0, Date.parse(next) - now().getTime()) };
  }

  let loop: BackgroundLoop | null = null;
  return {
    async start() {
      loop = backgroundLoop({ name: 'running schedules', logger, pass, pollMs });
      await loop.start();
    },
    wake: () => loop?.wake() ?? Promise.resolve(),
    async stop() {
      await loop?.stop();
      loop = null;
    },
  };
}
