import { describe, expect, it } from 'vitest';
import { AgentError } from '../agent/errors.js';
import { AppError, JOB_FAILURE_CODES } from '../domain/errors.js';
import { FAILURE_ADVICE } from '../domain/job-failures.js';
import { ContextRepositoryUnavailable } from '../git/context-mirror.js';
import { MirrorError } from '../git/mirror.js';
import { WorkspaceError } from '../git/paths.js';
import { GitError } from '../git/run.js';
import { CodeHostError } from '../hosts/types.js';
import { jobErrorOf, RepositoryError, SetupFailedError } from './errors.js';

describe("a failure's job error", () => {
  it('takes the code each kind of failure carries, never its message', () => {
    const cases: [unknown, string][] = [
      [new AgentError('step_limit', 'The run took 50 steps.'), 'step_limit'],
      [new AgentError('model_error', 'The provider answered 500.', { isRetryable: true }), 'model_error'],
      [new CodeHostError('The token cannot push.'), 'code_host_error'],
      [new GitError('fetch', 'exit', 128, 'fatal: no such ref'), 'repository_error'],
      [new MirrorError('The repository URL cannot be parsed.'), 'repository_error'],
      [WorkspaceError.notFound('docs/a.md'), 'repository_error'],
      [new RepositoryError('The branch main does not exist in the mirror.'), 'repository_error'],
      [new ContextRepositoryUnavailable('code', 'code: no such branch'), 'context_repository_unavailable'],
      [new SetupFailedError('npm ci failed.', 'npm ERR! missing lockfile'), 'setup_failed'],
      [new AppError('budget_exceeded', "The project's daily budget is spent."), 'budget_exceeded'],
    ];
    for (const [error, code] of cases) {
      expect(jobErrorOf(error), String(error)).toMatchObject({ code, expected: true });
    }
  });

  it('recognises a failure made by another copy of the module (no instanceof)', () => {
    const foreign = Object.assign(new Error('git push was refused'), {
      [Symbol.for('agentjobs.ServiceError')]: true,
      code: 'repository_error',
      expected: true,
    });
    expect(jobErrorOf(foreign)).toEqual({
      code: 'repository_error',
      message: 'git push was refused',
      expected: true,
    });
  });

  it('is internal_error, saying nothing, for anything else', () => {
    for (const error of [new Error('secret detail'), new AppError('invalid_request', 'x'), 'text', null]) {
      expect(jobErrorOf(error)).toEqual({
        code: 'internal_error',
        message: 'The job stopped on an internal error of the service.',
        expected: false,
      });
    }
  });

  it('has advice for a person for every code', () => {
    expect(Object.keys(FAILURE_ADVICE).sort()).toEqual([...JOB_FAILURE_CODES].sort());
    for (const advice of Object.values(FAILURE_ADVICE)) expect(advice.length).toBeGreaterThan(20);
  });
});
