/**
 * A job page's prompts: the first and each follow-up under its own heading, with the summary of the
 * run that answered it. The job's title comes from its first run and its `summary` from the latest,
 * so shown side by side after a follow-up they would seem to disagree; each answer under its own
 * prompt does not.
 */

import type { Job } from '../domain/job.js';
import type { PromptTurn } from '../domain/job-turns.js';
import { type Html, html, time } from './html.js';

/** What stands where a prompt's summary would, when its run gave none of its own. */
function answerOf(turn: PromptTurn, job: Job): Html {
  switch (turn.outcome) {
    case 'completed':
      return turn.summary
        ? html`<dt>Summary</dt><dd class="pre">${turn.summary}</dd>`
        : html`<dt>Summary</dt><dd class="hint">The run completed without one.</dd>`;
    case 'failed':
      return html`<dt>Summary</dt><dd class="hint">None: its run failed (the error is under Status).</dd>`;
    case 'continued':
      return html`<dt>Summary</dt><dd class="hint">The follow-up below reached the same run; its summary answers both.</dd>`;
    case 'unfinished':
      return html`<dt>Summary</dt><dd class="hint">${job.status === 'active' ? 'None yet: the agent is working on it.' : 'None: its run did not finish.'}</dd>`;
  }
}

/** The job's prompts, oldest first, each with its run's summary. */
export function promptsSection(job: Job, turns: readonly PromptTurn[]): Html {
  return html`<section id="job-prompts"><h2>Prompt${turns.length > 1 ? ' and follow-ups' : ''}</h2>
    ${turns.map(
      (
        turn,
      ) => html`<article class="turn"><h3>${turn.kind === 'prompt' ? 'Prompt' : 'Follow-up'}, ${time(turn.at)}</h3>
        <dl class="facts"><dt>Asked</dt><dd class="pre">${turn.text}</dd>${answerOf(turn, job)}</dl></article>`,
    )}</section>`;
}
