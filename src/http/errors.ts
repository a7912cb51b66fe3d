import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type ErrorCode, isAppError } from '../domain/errors.js';
import { redactSecrets } from '../domain/redact.js';

/** The one place where an error code becomes an HTTP status. */
const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  project_not_found: 404,
  job_not_found: 404,
  webhook_not_found: 404,
  delivery_not_found: 404,
  automation_not_found: 404,
  automation_disabled: 409,
  automation_limit_exceeded: 429,
  invalid_automation: 422,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  job_archived: 409,
  invalid_transition: 409,
  idempotency_in_flight: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  idempotency_mismatch: 422,
  model_not_allowed: 422,
  webhook_url_not_allowed: 422,
  rate_limited: 429,
  too_many_active_jobs: 429,
  budget_exceeded: 429,
  headers_too_large: 431,
  unavailable: 503,
  internal_error: 500,
};

/**
 * Tells an error that will pass from one that will not; the store knows its database's errors
 * (`Store.isTransient`), this file knows none.
 */
export type IsTransient = (error: unknown) => boolean;

/** For errors raised before a route runs (Fastify's own), which never come from the database. */
export const neverTransient: IsTransient = () => false;

/**
 * Turns what Fastify, its plugins and the routes throw into our domain errors; an error
 * `isTransient` admits answers 503 with Retry-After, as the client may simply try again.
 */
export function toAppError(error: FastifyError, isTransient: IsTransient): AppError {
  if (isAppError(error)) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'request';
    const details = error.validation.map((issue) => ({
      path: [where, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
      message: issue.message ?? 'is invalid',
    }));
    const first = details[0];
    return new AppError('invalid_request', first ? `${first.path}: ${first.message}` : 'Invalid request.', {
      details,
    });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than the limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'The request body must be JSON (Content-Type: application/json).',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new AppError('invalid_request', 'The URL is malformed.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('uri_too_long', 'A part of the URL is longer than any id this API uses.');
  }
  // Before the database check: a client that went away mid-body is an ECONNRESET with a 4xx
  // status, and is no sign of a database in trouble.
  const status = error.statusCode ?? 500;
  if (status === 404) return new AppError('not_found', 'Not found.');
  if (status >= 400 && status < 500) return new AppError('invalid_request', error.message || 'Bad request.');
  if (isTransient(error)) {
    return new AppError('unavailable', 'The database is unavailable; try again shortly.', {
      retryAfterSeconds: 5,
      cause: error,
    });
  }
  return new AppError('internal_error', 'Something went wrong on our side; it has been logged.', {
    cause: error,
  });
}

/** The HTTP status of an error code. */
export const statusOf = (code: ErrorCode): number => STATUS[code];

/** The response headers an error's data implies: the one place data becomes headers. */
export function errorHeaders(appError: AppError): Record<string, string> {
  const status = STATUS[appError.code];
  const headers: Record<string, string> = {};
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="agentjobs"';
  const retryAfter = appError.retryAfterSeconds ?? (status === 503 ? 5 : undefined);
  if (retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(retryAfter));
  if (appError.limit) {
    headers['ratelimit-limit'] = String(appError.limit.limit);
    headers['ratelimit-remaining'] = String(appError.limit.remaining);
    headers['ratelimit-reset'] = String(Math.ceil(appError.limit.resetSeconds));
  }
  if (appError.allowedMethods) headers.allow = appError.allowedMethods.join(', ');
  return headers;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, appError: AppError) {
  const status = STATUS[appError.code];
  reply.headers(errorHeaders(appError));
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({
      error: redactSecrets(appError.message),
      code: appError.code,
      requestId: request.id,
      ...(appError.details
        ? {
            details: appError.details.map((d) => ({
              path: redactSecrets(d.path),
              message: redactSecrets(d.message),
            })),
          }
        : {}),
    });
}

/**
 * What Node's HTTP parser refuses never reaches Fastify's routing, so it never gets a request, a
 * reply or the error handler; this writes the same answer (status, `X-Request-Id`, the error
 * body) straight to the socket, and closes it, since the rest of its bytes cannot be trusted.
 */
export function clientErrorAnswer(error: Error & { code?: string }, requestId: string): string {
  const appError =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError('request_timeout', 'The request did not arrive in time; the connection is closed.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('headers_too_large', 'The request line and headers are larger than the limit.')
        : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? new AppError('payload_too_large', 'The chunk extensions are larger than the limit.')
          : new AppError('invalid_request', 'The request is not valid HTTP.');
  const status = STATUS[appError.code];
  const body = JSON.stringify({ error: appError.message, code: appError.code, requestId });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Installs the error handler and the not-found handler. Unknown paths answer 404; a known path
 * with the wrong method answers 405 with `Allow`, which Fastify alone does not do.
 */
export function installErrorHandling(app: FastifyInstance, isTransient: IsTransient) {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+')}/?$`);
    const methods = [route.method].flat().map(String);
    const existing = routes.find((r) => r.pattern.source === pattern.source);
    if (existing) for (const method of methods) existing.methods.add(method);
    else routes.push({ pattern, methods: new Set(methods) });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, isTransient);
    if (appError.code === 'internal_error') request.log.error({ err: error }, 'request failed');
    else if (appError.code === 'unavailable') request.log.warn({ err: error }, 'database unavailable');
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const route = routes.find((r) => r.pattern.test(path));
    if (route) {
      const allowedMethods = [...route.methods].sort();
      return sendError(
        request,
        reply,
        new AppError(
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allowedMethods.join(', ')}.`,
          { allowedMethods },
        ),
      );
    }
    return sendError(request, reply, new AppError('not_found', `No route for ${request.method} ${path}.`));
  });
}
