import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Fastify, {
  type ConnectionError,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import secureJson from 'secure-json-parse';
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';
import { redactSecrets } from '../domain/redact.js';
import { clientErrorAnswer, installErrorHandling, sendError, toAppError } from '../http/errors.js';
import { type Logger, requestLogger } from '../log.js';
import type { Store } from '../store/store.js';
import { authenticate } from './auth.js';
import { eventRoutes } from './routes/events.js';
import { jobRoutes } from './routes/jobs.js';
import { webhookRoutes } from './routes/webhooks.js';

export interface AppOptions {
  config: Config;
  store: Store;
  logger: Logger;
  /** Shared with the process: once draining, `/readyz` and new work answer 503. */
  lifecycle?: { draining: boolean };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
const HOUR_MS = 60 * 60 * 1000;

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
function limitConnections(server: Server, maxConnections: number, logger: Logger) {
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
 * Builds the JSON API (v2, health, OpenAPI) on a Fastify instance without listening, so tests can
 * `inject` into it. `server.ts` registers the dashboard beside it (`buildHttpApp`).
 */
export async function buildApp({ config, store, logger, lifecycle = { draining: false } }: AppOptions) {
  const nextRequestId = requestIds();
  const { requestTimeoutMs } = config.limits;
  const app = Fastify({
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
      return sendError(request, reply, toAppError(error));
    },
    genReqId: nextRequestId,
    logController: new OneLinePerRequest(),
    childLoggerFactory: (parent, bindings, options) =>
      requestLogger(parent as Logger, bindings, options) as FastifyBaseLogger,
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();

  limitConnections(app.server, config.limits.maxConnections, logger);

  app.setValidatorCompiler(validatorCompiler);
  // Responses are built from typed objects; validating them again on every request would cost
  // throughput for nothing. The schemas still describe them in OpenAPI, and tests check them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  installErrorHandling(app);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  // Our own JSON parser: invalid UTF-8 is an error rather than silently replaced characters, and
  // `__proto__` / `constructor.prototype` keys are refused outright.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/([\w.-]+\+)?json$/,
    { parseAs: 'buffer' },
    (_request, body, done) => {
      const buffer = body as Buffer;
      if (buffer.length === 0) return done(null, undefined);
      let text: string;
      try {
        text = utf8.decode(buffer);
      } catch {
        return done(new AppError('invalid_json', 'The request body is not valid UTF-8.'), undefined);
      }
      try {
        done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
      } catch (error) {
        const reason =
          error instanceof SyntaxError
            ? 'is not valid JSON'
            : 'has a forbidden key (__proto__ or constructor)';
        done(new AppError('invalid_json', `The request body ${reason}.`), undefined);
      }
    },
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'agentjobs',
        version: '2',
        description: 'Send a prompt; an AI agent edits the project repository and opens a pull request.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });

  // The per-project budget for creates and follow-ups lives in the database, so it holds across
  // every API process. It runs after authentication (preHandler), so strangers cannot spend it.
  await app.register(rateLimit, {
    global: false,
    hook: 'preHandler',
    enableDraftSpec: true,
    max: config.limits.requestsPerHour,
    timeWindow: HOUR_MS,
    keyGenerator: (request) => `project:${(request.params as { projectId: string }).projectId}`,
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        `This project used its budget of ${context.max} jobs and follow-ups per hour; retry in ${context.after}.`,
      ),
    store: class DatabaseRateLimitStore {
      incr(
        key: string,
        callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
        timeWindow: number,
      ) {
        store.rateLimits.hit(key, timeWindow).then(
          ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
          (error: Error) => callback(error),
        );
      }
      child() {
        return this;
      }
    },
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    if (lifecycle.draining) {
      throw new AppError('unavailable', 'The server is shutting down.', { retryAfterSeconds: 5 });
    }
    await store.ping();
    return { status: 'ready' };
  });
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(async (v2) => {
    // Declared, so that every request object has the field from birth: set on a request that
    // lacks it, V8 would have to change the object's shape on every authenticated request.
    v2.decorateRequest('apiKey', undefined);
    v2.addHook('onRequest', async (request) => {
      if (lifecycle.draining && request.method !== 'GET') {
        throw new AppError('unavailable', 'The server is shutting down; retry against another instance.', {
          retryAfterSeconds: 5,
        });
      }
      request.apiKey = await authenticate(store, request);
    });
    await v2.register(jobRoutes, { config, store });
    await v2.register(webhookRoutes, { config, store });
    await v2.register(eventRoutes, { store, maxStreamsPerKey: config.limits.streamsPerKey });
  });

  return app as unknown as FastifyInstance;
}
