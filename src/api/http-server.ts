import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import {
  type ConnectionError,
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Config } from '../config/config.js';
import { redactSecrets } from '../domain/redact.js';
import { clientErrorAnswer, neverTransient, sendError, toAppError } from '../http/errors.js';
import { type Logger, requestLogger } from '../log.js';
import { MAX_PATH_ID_CHARS } from './schemas.js';

/**
 * One log line per request, when it completes, with what an operator needs (method, path,
 * status, time). Fastify's default also logs an "incoming request" line, which doubles the
 * logging cost on every request for little news.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest() {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    // Polling makes successful reads the bulk of traffic and the least news; they log at debug.
    const quiet = !error && reply.statusCode < 400 && (request.method === 'GET' || request.method === 'HEAD');
    // Building the line (and redacting its URL) costs more than the check, and debug is usually off.
    if (quiet && !(reply.log as Logger).isLevelEnabled('debug')) return;
    const line = {
      method: request.method,
      url: redactSecrets(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (quiet) reply.log.debug(line, 'request completed');
    else reply.log.info(line, 'request completed');
  }
}

/** Request ids: unique across processes (random prefix) and cheap per request (a counter). */
function requestIds() {
  const prefix = randomBytes(6).toString('base64url');
  let next = 0;
  return () => `req_${prefix}${(next++).toString(36)}`;
}

/**
 * Answers what Node's HTTP parser refused (malformed requests, headers over the limit, requests
 * that did not arrive in time) with the API's error shape, then closes the connection. The
 * answer is skipped when a response on this connection has begun: its bytes would corrupt it.
 */
function answerClientError(error: ConnectionError, socket: Socket, requestId: string, logger: Logger) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The code only: the error carries the raw bytes received, which may hold a key.
  logger.debug({ code: error.code, requestId }, 'refused a request the HTTP parser could not take');
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  // Ending rather than destroying at once lets the answer reach the client before the close; a
  // client that never reads it is cut off shortly after.
  socket.end(clientErrorAnswer(error, requestId));
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}
const CLOSE_GRACE_MS = 1000;
const DROP_WARNING_INTERVAL_MS = 60_000;

/**
 * Caps open connections: past the cap Node closes a new connection as it arrives. Event streams
 * are connections too, so the cap also bounds how many a process keeps open. Refusals are
 * logged now and then with how many there were, so that a flood does not flood the log.
 */
export function limitConnections(server: Server, maxConnections: number, logger: Logger) {
  server.maxConnections = maxConnections;
  let dropped = 0;
  let lastWarning = 0;
  server.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - lastWarning < DROP_WARNING_INTERVAL_MS) return;
    logger.warn({ dropped, maxConnections }, 'connections refused: AGENTJOBS_MAX_CONNECTIONS reached');
    lastWarning = now;
    dropped = 0;
  });
}

/**
 * The HTTP server's options: limits and timeouts from the configuration, request ids, one log line
 * per request, and errors Node's parser or Fastify raise answered in the API's error shape.
 */
export function serverOptions(
  config: Pick<Config, 'limits' | 'trustProxy'>,
  logger: Logger,
): FastifyHttpOptions<Server> {
  const nextRequestId = requestIds();
  const { requestTimeoutMs } = config.limits;
  return {
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.limits.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // Node's request timeout runs from a request's first byte until the whole request has arrived,
    // so it ends slow headers and slow bodies, and stops once a request is in: an event stream
    // outlives it. Node checks for late requests on an interval, by default far longer than a
    // short timeout; checking often costs a walk over the connections still receiving.
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(requestTimeoutMs / 4)),
    },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, nextRequestId(), logger),
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return sendError(request, reply, toAppError(error, neverTransient));
    },
    // A longer path part is 414 uri_too_long. Not the router's default of 100: a client moving over
    // from another service may hold job ids of any shape, and those must reach the job routes to
    // get their 404.
    routerOptions: { maxParamLength: MAX_PATH_ID_CHARS },
    genReqId: nextRequestId,
    logController: new OneLinePerRequest(),
    childLoggerFactory: (parent, bindings, options) =>
      requestLogger(parent as Logger, bindings, options) as FastifyBaseLogger,
    return503OnClosing: true,
  };
}
