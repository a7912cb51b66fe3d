import type { FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from '../domain/errors.js';
import { errorHeaders, neverTransient, toAppError } from './errors.js';

describe('errorHeaders', () => {
  it('turns the data an error carries into headers', () => {
    const full = new AppError('too_many_active_jobs', 'At the cap.', {
      retryAfterSeconds: 30,
      limit: { limit: 4, remaining: 0, resetSeconds: 30 },
    });
    expect(errorHeaders(full)).toEqual({
      'retry-after': '30',
      'ratelimit-limit': '4',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '30',
    });
    const method = new AppError('method_not_allowed', 'No.', { allowedMethods: ['GET', 'POST'] });
    expect(errorHeaders(method)).toEqual({ allow: 'GET, POST' });
  });

  it('adds what a status always needs and nothing for plain errors', () => {
    expect(errorHeaders(new AppError('unauthorized', 'No key.'))).toEqual({
      'www-authenticate': 'Bearer realm="agentjobs"',
    });
    expect(errorHeaders(new AppError('unavailable', 'Away.'))).toEqual({ 'retry-after': '5' });
    expect(errorHeaders(new AppError('unavailable', 'Draining.', { retryAfterSeconds: 1.2 }))).toEqual({
      'retry-after': '2',
    });
    expect(errorHeaders(new AppError('job_not_found', 'None.'))).toEqual({});
  });
});

describe('toAppError', () => {
  // An error of a database this file knows nothing of: only the store's predicate can tell.
  const busy = Object.assign(new Error('the database is busy'), { code: 'SOME_DIALECT_BUSY' });

  it("answers 503 with Retry-After for what the store's predicate calls transient", () => {
    const appError = toAppError(busy as FastifyError, (error) => error === busy);
    expect(appError.code).toBe('unavailable');
    expect(errorHeaders(appError)).toEqual({ 'retry-after': '5' });
  });

  it('answers 500 for the same error when the predicate refuses it, whatever its code says', () => {
    expect(toAppError(busy as FastifyError, () => false).code).toBe('internal_error');
    const sqliteBusy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    expect(toAppError(sqliteBusy as FastifyError, neverTransient).code).toBe('internal_error');
  });
});
