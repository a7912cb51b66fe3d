import { expect, it } from 'vitest';
import type { Job } from '../../domain/job.js';
import { finishText } from './reporter.js';

const job = (fields: Partial<Job>) =>
  ({ status: 'completed', prLink: null, summary: null, error: null, ...fields }) as Job;
const page = 'https://agentjobs.example.com/ui/projects/p/jobs/j';

it('says what came of the job: the pull request and summary, nothing to change, or the failure and what to do', () => {
  expect(finishText(job({ prLink: 'https://host/pr/1', summary: 'Fixed the typo.' }), page)).toBe(
    'Done: https://host/pr/1\n\nFixed the typo.',
  );
  expect(finishText(job({ summary: 'All good already.' }), page)).toBe(
    `Done, and nothing needed changing.\n\nAll good already.\n${page}`,
  );
  expect(
    finishText(
      job({
        status: 'failed',
        error: { code: 'step_limit', message: 'The agent ran out of steps.' },
      } as Partial<Job>),
      page,
    ),
  ).toBe(
    `The job failed: The agent ran out of steps.\nWhat to do: reply in this thread to try again with more to go on, or see ${page}`,
  );
});
