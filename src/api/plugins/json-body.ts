import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.js';
import { parseJsonBytes } from '../../domain/json.js';

/**
 * `application/json` or `application/<x>+json`, with or without parameters. Clients such as .NET's
 * HttpClient and OkHttp send `; charset=utf-8` by default; the parser then checks the charset.
 */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;
const CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** The charset a Content-Type names, lower-cased, or undefined when it names none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = contentType ? CHARSET.exec(contentType) : null;
  if (!match) return undefined;
  return (match[1] ?? match[2] ?? '').toLowerCase();
}

/**
 * The API's one body parser. JSON is UTF-8 (RFC 8259), so a body that declares another charset is
 * refused with 415 rather than read as if it were UTF-8; the bytes are read by `parseJsonBytes`
 * (`domain/json.ts`), the one JSON reader the hook receipt uses too.
 * Registered at the root so it applies to every JSON route; the dashboard adds its form parser in
 * its own scope.
 */
export const jsonBody = fp(async (app: FastifyInstance) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(
        new AppError(
          'unsupported_media_type',
          'JSON bodies must be UTF-8: send charset=utf-8 or no charset.',
        ),
        undefined,
      );
    }
    const buffer = body as Buffer;
    if (buffer.length === 0) return done(null, undefined);
    let value: unknown;
    try {
      value = parseJsonBytes(buffer);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, value);
  });
});
