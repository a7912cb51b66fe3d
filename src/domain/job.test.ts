import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { JOB_STATUSES, type JobStatus, type JobTrigger, transition, transitionOf } from './job.js';

const TRIGGERS: JobTrigger[] = ['finish', 'fail', 'requeue', 'archive', 'follow_up'];

describe('the job state machine', () => {
  it('ends a run only from active', () => {
    expect(transition('active', 'finish')).toBe('completed');
    expect(transition('active', 'fail')).toBe('failed');
    expect(transition('active', 'requeue')).toBe('active');
    for (const from of ['completed', 'failed'] as const) {
      for (const trigger of ['finish', 'fail', 'requeue'] as const) {
        expect(() => transition(from, trigger)).toThrow(
          expect.objectContaining({ code: 'invalid_transition' }),
        );
      }
    }
  });

  it('archives and follows up any job that is not archived', () => {
    for (const from of ['active', 'completed', 'failed'] as const) {
      expect(transition(from, 'archive')).toBe('archived');
      expect(transition(from, 'follow_up')).toBe('active');
    }
  });

  it('refuses everything on an archived job, saying it is final', () => {
    for (const trigger of TRIGGERS) {
      let caught: unknown;
      try {
        transition('archived', trigger);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect(caught).toMatchObject({ code: 'job_archived' });
    }
  });

  it('names the status it refuses and the trigger in words', () => {
    expect(() => transition('completed', 'requeue')).toThrow('A job that is completed cannot requeue.');
  });

  it('gives the queue the same answer as transition, as a fence and a target', () => {
    for (const trigger of TRIGGERS) {
      const { from, to } = transitionOf(trigger);
      for (const status of JOB_STATUSES as readonly JobStatus[]) {
        if (from.includes(status)) expect(transition(status, trigger)).toBe(to);
        else expect(() => transition(status, trigger)).toThrow(AppError);
      }
    }
  });
});
