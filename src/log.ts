import pino, { type Logger } from 'pino';

/**
 * The service logger. Redaction is a second line of defence: secrets should never reach a log
 * call at all, but if a header or a config object slips into one, these paths are censored.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
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
    destination,
  );
}

export type { Logger };
