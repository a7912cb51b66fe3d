/**
 * The cursors of every paged list (jobs, a webhook's deliveries, an automation's runs): opaque to
 * clients, base64url of the last id on the page, refused unless it decodes to an id.
 */
import { AppError } from './errors.js';
import { ID_PATTERN } from './ids.js';

export const encodeCursor = (id: string) => Buffer.from(id).toString('base64url');

/** The id a cursor names; an `invalid_request` naming `querystring.cursor` when it names none. */
export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!ID_PATTERN.test(id)) {
    throw new AppError('invalid_request', 'cursor is not valid; pass nextCursor from the previous page.', {
      details: [{ path: 'querystring.cursor', message: 'is not a cursor this API issued' }],
    });
  }
  return id;
}
