/**
 * The job operations' input errors are typed (`operations/input.ts`): each wrong field has its name and
 * a problem code, which the dashboard's form switches on instead of reading the message.
 */
import { describe, expect, it } from 'vitest';
import { createJobInput, InputError, parseInput } from '../../src/operations/input.js';
import { startJob } from '../../src/web/new-job.js';

const schema = createJobInput(50);
const problemOf = (input: unknown) => {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (!InputError.isInstance(error)) throw error;
    return error.problems[0];
  }
  throw new Error('the input was accepted');
};

describe('typed input errors', () => {
  it.each([
    [{}, 'missing'],
    [{ prompt: '' }, 'empty'],
    [{ prompt: '   ' }, 'blank'],
    [{ prompt: 'x'.repeat(51) }, 'too_long'],
    [{ prompt: 7 }, 'wrong_type'],
    [{ prompt: 'a\u0007b' }, 'control_characters'],
    [{ prompt: 'a\uD800b' }, 'malformed_unicode'],
  ])('names the prompt and its problem for %j', (input, problem) => {
    expect(problemOf(input)).toMatchObject({ field: 'prompt', problem });
  });

  it('gives a bad branch its reason apart from the message, and keeps the API message', () => {
    try {
      parseInput(schema, { prompt: 'ok', baseRef: 'a..b' });
      expect.unreachable();
    } catch (error) {
      expect(InputError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'invalid_request',
        message: 'body.baseRef: is not a valid branch name: must not contain ".."',
        problems: [{ field: 'baseRef', problem: 'invalid_branch', reason: 'must not contain ".."' }],
        details: [{ path: 'body.baseRef', message: 'is not a valid branch name: must not contain ".."' }],
      });
    }
  });

  it('gives a prompt that is too long its limit', () => {
    expect(problemOf({ prompt: 'x'.repeat(51) })).toMatchObject({ limit: 50 });
  });

  it('lets the dashboard word a problem without reading the message', async () => {
    // The dashboard's start never reaches the store when the input is wrong.
    const deps = {
      store: { isTransient: () => false } as never,
      config: {
        defaultModel: 'anthropic:claude-sonnet-4-5',
        limits: { requestsPerHour: 10, activeJobsPerProject: 5, maxPromptChars: 50 },
      },
    };
    const project = { id: 'p', baseBranch: 'main', allowedModels: null, publish: 'pull_request' } as never;
    const values = { prompt: 'do it', model: '', baseRef: 'a..b', draft: false, idempotencyKey: '' };
    const outcome = await startJob(deps, project, values);
    expect(outcome).toMatchObject({
      status: 400,
      errors: { baseRef: 'Not a branch name git accepts: it must not contain "..".' },
    });
  });
});
