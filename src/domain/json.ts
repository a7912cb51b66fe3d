/**
 * The one way a request body becomes JSON (docs/architecture.md, "Operations"): the API's body
 * parser and the code-host hook receipt both read bytes with it. Bytes, not a string, because the
 * hooks' signatures are over the raw body and are checked before it is read.
 */
import secureJson from 'secure-json-parse';
import { AppError } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads `bytes` as JSON: UTF-8 only (RFC 8259), invalid UTF-8 refused rather than replaced, and
 * `__proto__` or `constructor.prototype` keys refused outright (prototype poisoning).
 *
 * @throws AppError `invalid_json`, saying which of the three it was
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid UTF-8.');
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    // secure-json-parse throws a SyntaxError for both; only a refused body is parsed again, to say which.
    throw new AppError(
      'invalid_json',
      `The request body ${isJson(text) ? FORBIDDEN_KEY : 'is not valid JSON'}.`,
    );
  }
}

const FORBIDDEN_KEY = 'has a forbidden key (__proto__ or constructor)';

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
