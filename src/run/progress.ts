/**
 * Continuing a run whose attempt was lost (its worker died, or was stopped and handed the job back):
 * after each finished step the run saves its conversation and the files it wrote so far
 * (with the step, `store.queue.recordStep`); the next attempt starts from that conversation, takes the written
 * files back into its workspace when it can, and tells the model so in one more user message, so
 * the model continues instead of repeating the tool calls it already made.
 *
 * What is kept: the conversation up to the last finished step (the model's answers and every tool
 * result of that step), and the files written by then, when the new attempt runs on the same data
 * directory (the blobs are in its mirror) from the same commit. What is lost: the step in flight
 * (its model call and tool calls are made again), and the written files when the mirror lacks them
 * (another machine took the job) or the branch moved: the model is told to check and redo them.
 */
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { RESUMED_WITH_FILES, RESUMED_WITHOUT_FILES } from '../agent/service-notes.js';
import type { ProgressSave, Prompt, RunProgress } from '../store/queue/index.js';
import type { PreparedRun } from './phases/prepare.js';

export { RESUMED_WITH_FILES, RESUMED_WITHOUT_FILES } from '../agent/service-notes.js';

/**
 * The shape of a record's changes. What they say is checked by `Workspace.restore` with the rules
 * of the agent's own writes: the record is in the database, and trusted no more than the model.
 */
const recordedChanges = z.object({
  head: z.string(),
  written: z.array(z.object({ path: z.string(), mode: z.string(), sha: z.string() })),
  deleted: z.array(z.string()),
});

/** How a run starts when it continues an earlier attempt. */
export interface Resumed {
  /** The earlier attempt's conversation. */
  history: ModelMessage[];
  /** The note on the restart, then the prompts the earlier attempt had not been given. */
  prompts: string[];
  /** Whether the written files were taken back. */
  filesKept: boolean;
  /** The attempt it continues. */
  attempt: number;
}

/**
 * The earlier attempt's progress to continue from, or null when there is none (a new run). `taken`
 * are the prompts the run was handed (`takePrompts`): those the progress covers are left out.
 */
export async function resumeFrom(run: PreparedRun, taken: readonly Prompt[]): Promise<Resumed | null> {
  const progress: RunProgress | null = await run.deps.store.queue.progress(run.job.id);
  if (!progress || progress.attempt >= run.lease.attempt) return null;
  const filesKept = progress.changes === null || (await restoreChanges(run, progress.changes));
  const through = progress.deliveredThrough;
  const fresh = taken.filter((prompt) => through === null || prompt.id > through);
  return {
    history: progress.conversation as ModelMessage[],
    prompts: [
      filesKept ? RESUMED_WITH_FILES : RESUMED_WITHOUT_FILES,
      ...fresh.map((prompt) => prompt.content),
    ],
    filesKept,
    attempt: progress.attempt,
  };
}

/** Takes back the recorded changes; false, and a warning in the log, when they cannot be. */
async function restoreChanges(run: PreparedRun, recorded: unknown): Promise<boolean> {
  const changes = recordedChanges.safeParse(recorded);
  if (!changes.success) {
    run.control.log.warn('the earlier attempt recorded its files in a shape that is not read');
    return false;
  }
  const { written, deleted } = changes.data;
  if (written.length + deleted.length === 0) return true;
  try {
    return await run.workspace.restore(changes.data, run.deps.config.jobLimits.maxFilesChanged);
  } catch (error) {
    run.control.log.warn({ err: error }, 'could not take back the files of the earlier attempt');
    return false;
  }
}

/**
 * The run's progress after each step, for the agent's `onStep` to save with the step: the
 * conversation with the run's written files. Only the messages that differ from what this
 * attempt saved last are written: a step appends a few messages to a conversation that holds
 * every file read so far. The messages are compared as the JSON they are saved as, so a message
 * changed in place (a compacted tool input) is written again, with every one after it. `written`
 * is called once the save is in the database.
 */
export function progressSaver(
  run: PreparedRun,
): (conversation: ModelMessage[]) => { save: ProgressSave; written: () => void } {
  let saved: string[] | null = null;
  return (conversation) => {
    const messages = conversation.map((message) => JSON.stringify(message));
    const from = saved === null ? 0 : samePrefix(saved, messages);
    return {
      save: {
        from,
        messages: messages.slice(from),
        deliveredThrough: run.deliveredThrough,
        changes: run.workspace.pendingChanges(),
      },
      written: () => {
        saved = messages;
      },
    };
  };
}

/** How many leading items `a` and `b` have in common. */
function samePrefix(a: readonly string[], b: readonly string[]): number {
  let same = 0;
  while (same < a.length && same < b.length && a[same] === b[same]) same++;
  return same;
}
