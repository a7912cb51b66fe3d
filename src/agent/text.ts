/**
 * Text handling of the file tools: numbered pages for `read_file`, the exactly-once match of
 * `edit_file`. Kept apart from the tool definitions so each can be read on its own.
 */
import { ToolError } from './errors.js';

/** Characters of one line `read_file` shows; minified files would otherwise flood the context. */
const MAX_LINE_CHARS = 2000;
/** Bound on one `read_file` answer, whatever the line lengths. */
const MAX_READ_CHARS = 100_000;

/** Lines `offset`… of `text`, numbered, with a header line and a note on how to read further. */
export function numberedLines(file: string, text: string, offset: number, limit: number): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${file} is empty (0 lines).`;
  if (offset > lines.length)
    throw new ToolError(`"${file}" has ${lines.length} lines; offset ${offset} is past the end.`);
  const width = String(Math.min(lines.length, offset + limit - 1)).length;
  const shown: string[] = [];
  let chars = 0;
  for (let number = offset; number < offset + limit && number <= lines.length; number++) {
    let line = lines[number - 1] as string;
    if (line.length > MAX_LINE_CHARS)
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut, ${line.length} chars]`;
    chars += line.length + width + 2;
    if (chars > MAX_READ_CHARS && shown.length > 0) break;
    shown.push(`${String(number).padStart(width)}\t${line}`);
  }
  const last = offset + shown.length - 1;
  const header = `${file} (lines ${offset}-${last} of ${lines.length}):`;
  const more =
    last < lines.length
      ? `\n[Showing lines ${offset}-${last} of ${lines.length}. Call read_file with offset ${last + 1} to read more.]`
      : '';
  return `${header}\n${shown.join('\n')}${more}`;
}

/** Where `old_text` occurs; a file with CRLF line endings also matches `old_text` written with LF. */
export function findEdit(file: string, text: string, oldText: string, newText: string) {
  if (oldText.length === 0) throw new ToolError('old_text is empty. Give the exact text to replace.');
  if (oldText === newText) throw new ToolError('old_text and new_text are the same; nothing would change.');
  let count = occurrences(text, oldText);
  if (count === 0 && text.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
    const crlf = (value: string) => value.replace(/\r?\n/g, '\r\n');
    count = occurrences(text, crlf(oldText));
    if (count > 0) ({ oldText, newText } = { oldText: crlf(oldText), newText: crlf(newText) });
  }
  if (count === 0) {
    throw new ToolError(
      `old_text was not found in "${file}" (0 occurrences). Read the file again and copy the text exactly, including whitespace and line breaks, without the line numbers.`,
    );
  }
  if (count > 1) {
    throw new ToolError(
      `old_text occurs ${count} times in "${file}"; it must occur exactly once. Include more of the surrounding lines to make it unique.`,
    );
  }
  return { index: text.indexOf(oldText), oldText, newText };
}

/** Occurrences of `needle`, overlapping ones included, so "exactly once" really is unambiguous. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index >= 0; index = text.indexOf(needle, index + 1)) count++;
  return count;
}

/** Lines without their line ending; a final line break does not start another line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

export function countLines(text: string): number {
  return splitLines(text).length || (text === '' ? 0 : 1);
}

export function plural(count: number): string {
  return count === 1 ? '' : 's';
}
