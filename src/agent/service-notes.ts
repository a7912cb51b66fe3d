/**
 * The notes the service itself adds to a run's conversation as user messages (a follow-up's word
 * on where its branch stands, a resumed run's word on the restart). Each opens with
 * `SERVICE_NOTE_OPENING`, so what reads the conversation (the demo model) can tell the service's
 * words from the user's.
 */

/** How every service note opens. */
export const SERVICE_NOTE_OPENING = '(From agentjobs';

/** What the next message tells the model when its edits were taken back. */
export const RESUMED_WITH_FILES = `${SERVICE_NOTE_OPENING}: the service restarted while you were working, and this run continues from your last finished step. The files you changed are as you left them. Continue where you left off; do not repeat the steps you already finished.)`;

/** What the next message tells the model when its edits could not be taken back. */
export const RESUMED_WITHOUT_FILES = `${SERVICE_NOTE_OPENING}: the service restarted while you were working, and this run continues from your last finished step, but the changes you made to files could not be taken back as you left them. Read the files you changed to see where they stand, make again the edits that are still needed, then continue where you left off.)`;

/** A user message split into the service's notes at its start and the user's own words after them. */
export function splitNotes(text: string): { notes: string[]; words: string } {
  const notes: string[] = [];
  let rest = text.trimStart();
  while (rest.startsWith(SERVICE_NOTE_OPENING)) {
    // A note ends at its closing parenthesis at the end of a line: the message's end or a blank line.
    const end = /\)(\n\n|\s*$)/.exec(rest);
    if (!end) break;
    notes.push(rest.slice(0, end.index + 1));
    rest = rest.slice(end.index + end[0].length).trimStart();
  }
  return { notes, words: rest.trim() };
}
