import { describe, expect, it } from 'vitest';
import type { JobEvent, NewEvent } from './events.js';
import { promptTurns } from './job-turns.js';

const job = { prompt: 'Add an FAQ page', createdAt: '2026-11-28T08:00:00.000Z' };

/** The events in order, numbered and a minute apart. */
const log = (...events: NewEvent[]): JobEvent[] =>
  events.map(
    (event, index) =>
      ({
        ...event,
        seq: index + 1,
        at: `2026-11-28T08:${String(index + 1).padStart(2, '0')}:00.000Z`,
      }) as JobEvent,
  );
const said = (text: string): NewEvent => ({ type: 'message', data: { role: 'assistant', text } });
const asked = (text: string): NewEvent => ({ type: 'message', data: { role: 'user', text } });
const completed: NewEvent = { type: 'status', data: { status: 'completed', prLink: null } };

describe('promptTurns', () => {
  it('gives the first prompt and each follow-up the summary of the run that answered it', () => {
    const turns = promptTurns(
      job,
      log(
        said('Reading the docs'),
        said('Add an FAQ page\n\nI added faq.md.'),
        completed,
        asked('Add a question on updates'),
        { type: 'status', data: { status: 'active', phase: 'queued' } },
        said('Answered the follow-up'),
        completed,
      ),
    );
    expect(turns).toEqual([
      {
        kind: 'prompt',
        text: 'Add an FAQ page',
        at: job.createdAt,
        summary: 'Add an FAQ page\n\nI added faq.md.',
        outcome: 'completed',
      },
      {
        kind: 'follow_up',
        text: 'Add a question on updates',
        at: '2026-11-28T08:04:00.000Z',
        summary: 'Answered the follow-up',
        outcome: 'completed',
      },
    ]);
  });

  it('says which prompts have no summary of their own: joined a running run, failed, still running', () => {
    const joined = promptTurns(
      job,
      log(said('Working'), asked('Also a glossary'), said('Both done'), completed),
    );
    expect(joined.map((turn) => [turn.outcome, turn.summary])).toEqual([
      ['continued', null],
      ['completed', 'Both done'],
    ]);

    const failed = promptTurns(
      job,
      log(
        said('Reading'),
        { type: 'status', data: { status: 'failed' } },
        asked('Try again'),
        said('Looking'),
      ),
    );
    expect(failed.map((turn) => [turn.outcome, turn.summary])).toEqual([
      ['failed', null],
      ['unfinished', null],
    ]);
  });

  it('ends a run at its requeue for a waiting follow-up, and keeps the summary of a run with nothing new to answer', () => {
    const requeued = promptTurns(
      job,
      log(said('First answer'), { type: 'phase', data: { phase: 'queued', reason: 'follow_up' } }, completed),
    );
    expect(requeued.map((turn) => [turn.outcome, turn.summary])).toEqual([['completed', 'First answer']]);
  });
});
