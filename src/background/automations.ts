/**
 * What runs automations in a process: the scheduler (schedule triggers) and the dispatcher of the
 * code hosts' events (code, content and comment triggers), started and stopped together. Every
 * role runs both; their claims make each time and each event run once across processes.
 */
import { createHostEventDispatcher, type HostEventDispatcherOptions } from './host-events.js';
import { createScheduler } from './scheduler.js';

/** The automation loops of one process. */
export interface AutomationLoops {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createAutomationLoops(options: HostEventDispatcherOptions): AutomationLoops {
  const scheduler = createScheduler(options);
  const dispatcher = createHostEventDispatcher(options);
  return {
    async start() {
      await scheduler.start();
      await dispatcher.start();
    },
    async stop() {
      await Promise.all([scheduler.stop(), dispatcher.stop()]);
    },
  };
}
