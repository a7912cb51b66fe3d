/**
 * A job's prompts, each with what its run answered (docs/dashboard.md, "A job's page"). A job's
 * `title` is named by its first run and a follow-up keeps it, while `summary` is the latest run's
 * final message; shown alone after a follow-up, the two seem to contradict each other. Each
 * prompt's own answer is in the job's events, so nothing stores it twice: the agent's last message
 * before a run completed is that run's summary (agent/loop.ts makes the summary from it).
 */
import type { JobEvent } from './events.js';

/** How a prompt's run ended, as far as the events tell. */
export type TurnOutcome =
  /** The run completed; `summary` is its final message. */
  | 'completed'
  | 'failed'
  /** No run ended after this prompt: it still runs, or the job was archived while it did. */
  | 'unfinished'
  /** A later follow-up reached the same run before it ended: that follow-up's answer covers both. */
  | 'continued';

/** The job's first prompt or a follow-up, and what answered it. */
export interface PromptTurn {
  kind: 'prompt' | 'follow_up';
  text: string;
  at: string;
  /** The agent's final message of the run that answered it; null unless `outcome` is `completed`. */
  summary: string | null;
  outcome: TurnOutcome;
}

/** The events `promptTurns` reads; other types are skipped. */
export const TURN_EVENT_TYPES = ['message', 'status', 'phase'] as const;

/**
 * Each prompt of the job, oldest first, with its run's summary. A run ends completed with a
 * `status` event, or with a `phase` event back to the queue when a follow-up waited (the store's
 * `complete`); it fails with a `status` event.
 */
export function promptTurns(
  job: { prompt: string; createdAt: string },
  events: readonly JobEvent[],
): PromptTurn[] {
  const turns: PromptTurn[] = [
    { kind: 'prompt', text: job.prompt, at: job.createdAt, summary: null, outcome: 'unfinished' },
  ];
  let lastText: string | null = null;
  for (const event of events) {
    const turn = turns[turns.length - 1] as PromptTurn;
    if (event.type === 'message' && event.data.role === 'user') {
      if (turn.outcome === 'unfinished') turn.outcome = 'continued';
      turns.push({
        kind: 'follow_up',
        text: event.data.text,
        at: event.at,
        summary: null,
        outcome: 'unfinished',
      });
      lastText = null;
    } else if (event.type === 'message') {
      lastText = event.data.text;
    } else if (event.type === 'status' && event.data.status === 'failed') {
      turn.outcome = 'failed';
    } else if (
      (event.type === 'status' && event.data.status === 'completed') ||
      (event.type === 'phase' && event.data.reason === 'follow_up')
    ) {
      // A run with no new prompt to answer keeps the summary it had (run/phases/agent.ts).
      turn.summary = lastText?.trim() ?? turn.summary;
      turn.outcome = 'completed';
    }
  }
  return turns;
}
