import pino, { type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { redactSecrets } from './domain/redact.js';

/**
 * The service logger. Redaction is a second line of defence: secrets should never reach a log
 * call at all, but if a header or a config object slips into one, these paths are censored.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  // Buffered, asynchronous writes to stdout: a synchronous write per log line costs the API a
  // tenth of its throughput. Writes are batched while one is in flight.
  const target = destination ?? stdoutDestination();
  return pino(
    {
      level,
      serializers: {
        // Fastify's request log line carries the URL; a key pasted into a query string must not land in logs.
        req: (request: { method?: string; url?: string; id?: string; ip?: string }) => ({
          id: request.id,
          method: request.method,
          url: request.url && redactSecrets(request.url),
          remoteAddress: request.ip,
        }),
        err: (error: Error) => ({
          ...pino.stdSerializers.err(error),
          message: redactSecrets(error.message ?? ''),
        }),
      },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          '*.authorization',
          '*.apiKey',
          '*.token',
          '*.password',
          '*.secretKey',
          'key',
          '*.key',
        ],
        censor: '[redacted]',
      },
    },
    target,
  );
}

export type { Logger };

/** `AGENTJOBS_LOG_FORMAT`: `auto` is pretty on a terminal and JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Where the service's log goes: for a person at a terminal, one readable line per entry (in
 * colour where the terminal has it); for anything else (a pipe, a file, a log shipper), JSON lines.
 * Redaction happens in pino before either, so both carry the same censored values.
 */
export function logDestination(format: LogFormat, isTerminal = process.stdout.isTTY === true) {
  if (format === 'json' || (format === 'auto' && !isTerminal)) return stdoutDestination();
  // Synchronous: a person's terminal takes little, and a line must be out before the process is.
  return pinoPretty({ sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' });
}

/** Resolves once the lines logged so far are written (the asynchronous destination buffers them). */
export function flushLog(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

/** How long the synchronous flush at exit may wait for a destination that takes nothing. */
const EXIT_FLUSH_MS = 1_000;

/**
 * Buffered, asynchronous writes to stdout, with a bounded flush at exit. Opening `process.stdout`
 * makes a pipe's descriptor non-blocking, so a full pipe answers EAGAIN instead of stopping a
 * libuv thread in write(2), which would stop the process's exit too. pino flushes synchronously at
 * exit and retries EAGAIN until the destination takes everything: on a pipe nobody reads, for
 * ever. Here it gives up after a while, and `exitNow` skips it.
 */
function stdoutDestination(): pino.DestinationStream {
  let giveUpAt = Number.POSITIVE_INFINITY;
  const destination = pino.destination({
    dest: process.stdout.fd,
    sync: false,
    retryEAGAIN: () => Date.now() < giveUpAt,
  });
  const flushSync = destination.flushSync.bind(destination);
  destination.flushSync = () => {
    giveUpAt = Date.now() + EXIT_FLUSH_MS;
    try {
      flushSync();
    } catch {
      // The destination took nothing in time: its lines are lost, the exit is not.
    }
  };
  return destination;
}

/**
 * Ends the process at once, without the synchronous flush of the log lines still buffered: for a
 * second signal and for an overrun shutdown deadline, when waiting on a stalled destination is
 * what must not happen.
 */
export function exitNow(logger: Logger, code: number): never {
  const destination = (logger as unknown as Record<symbol, { flushSync?: () => void } | undefined>)[
    pino.symbols.streamSym
  ];
  if (typeof destination?.flushSync === 'function') destination.flushSync = () => {};
  process.exit(code);
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArguments = [object | string, ...unknown[]];

/**
 * A request's logger that makes its pino child (bound to the request id) only when the request
 * first logs at an enabled level. Building a child costs about as much as a whole cached read,
 * and most requests never log: successful reads log at debug, which is off by default.
 */
class RequestLogger {
  readonly #parent: Logger;
  readonly #bindings: pino.Bindings;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: pino.Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #logger(): Logger {
    this.#child ??= this.#parent.child(this.#bindings);
    return this.#child;
  }

  #log(level: Level, args: LogArguments) {
    if (!(this.#child ?? this.#parent).isLevelEnabled(level)) return;
    (this.#logger()[level] as (...args: LogArguments) => void)(...args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.#logger().level = level;
  }
  fatal(...args: LogArguments) {
    this.#log('fatal', args);
  }
  error(...args: LogArguments) {
    this.#log('error', args);
  }
  warn(...args: LogArguments) {
    this.#log('warn', args);
  }
  info(...args: LogArguments) {
    this.#log('info', args);
  }
  debug(...args: LogArguments) {
    this.#log('debug', args);
  }
  trace(...args: LogArguments) {
    this.#log('trace', args);
  }
  silent() {}
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.#logger().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: the per-request logger. Options (a route's own log level or
 * serializers) need a real child at once; without them the child waits until something logs.
 */
export function requestLogger(
  parent: Logger,
  bindings: pino.Bindings,
  options: pino.ChildLoggerOptions,
): Logger {
  if (options.level !== undefined || options.serializers !== undefined)
    return parent.child(bindings, options);
  return new RequestLogger(parent, bindings) as unknown as Logger;
}
