import pino, { type Logger } from 'pino';
import { redactSecrets } from './domain/redact.js';

/**
 * The service logger. Redaction is a second line of defence: secrets should never reach a log
 * call at all, but if a header or a config object slips into one, these paths are censored.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  // Buffered, asynchronous writes to stdout: a synchronous write per log line costs the API a
  // tenth of its throughput. Writes are batched while one is in flight; pino flushes at exit.
  const target = destination ?? pino.destination({ dest: 1, sync: false });
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
