/**
 * How deeply a text nests, measured in one linear pass before any parser sees it. The parsers of
 * Markdown, YAML and the syntax trees they build recurse (or slow down) with the nesting: nested
 * `>` slow micromark super-linearly, a deep YAML document exhausts the composer (and can abort the
 * process from V8's regular-expression compiler near the stack's end), and rendering or walking a
 * very deep tree overflows the stack. Each measure is an
 * upper bound of what the parser would build, cheap enough to run on anything.
 */

/** Nesting the checks and the dashboard read; real documents stay far below it. */
export const MAX_NESTING = 256;

/**
 * The deepest run of Markdown block containers (`>`, list markers, indentation) that opens a
 * line: `> > - 1. text` is 4 deep. Two columns of indentation count as one level, the least a
 * list item's content is indented by.
 */
export function markdownNesting(text: string): number {
  let deepest = 0;
  let depth = 0;
  let columns = 0;
  let atLineStart = true;
  // The space after a marker belongs to the marker, not to the indentation.
  let afterMarker = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 10 /* \n */) {
      atLineStart = true;
      depth = 0;
      columns = 0;
      afterMarker = false;
      continue;
    }
    if (!atLineStart) continue;
    const next = text.charCodeAt(index + 1);
    const spaceNext = next === 32 || next === 9 || next === 10 || Number.isNaN(next);
    const marker = afterMarker;
    afterMarker = false;
    if (char === 32) columns += marker ? 0 : 1;
    else if (char === 9) columns += marker ? 3 : 4;
    else if (char === 62 /* > */) {
      depth += 1;
      afterMarker = true;
    } else if ((char === 45 || char === 42 || char === 43) /* - * + */ && spaceNext) {
      depth += 1;
      afterMarker = true;
    } else if (char >= 48 && char <= 57) {
      // An ordered list marker: digits, then `.` or `)`, then a space.
      let end = index;
      while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
      const after = text.charCodeAt(end + 1);
      const ordered = text.charCodeAt(end) === 46 || text.charCodeAt(end) === 41;
      if (!ordered || !(after === 32 || after === 9 || after === 10 || Number.isNaN(after)))
        atLineStart = false;
      else {
        depth += 1;
        afterMarker = true;
        index = end;
      }
    } else atLineStart = false;
    deepest = Math.max(deepest, depth + Math.floor(columns / 2));
  }
  return deepest;
}

/** The deepest nesting of JSON arrays and objects, brackets inside strings not counted. */
export function jsonNesting(text: string): number {
  let deepest = 0;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92 /* \ */) index++;
      else if (char === 34 /* " */) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 91 || char === 123 /* [ { */) deepest = Math.max(deepest, ++depth);
    else if (char === 93 || char === 125 /* ] } */) depth = Math.max(0, depth - 1);
  }
  return deepest;
}

/**
 * An upper bound of a YAML document's nesting: its flow collections (`[`, `{`, quotes not
 * considered, so a stray bracket in a plain scalar counts) plus, on each line, the indentation and
 * the compact block indicators (`- - - a`, `? `) that open it.
 */
export function yamlNesting(text: string): number {
  let deepest = 0;
  let flow = 0;
  let block = 0;
  let atLineStart = true;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 10) {
      atLineStart = true;
      block = 0;
      continue;
    }
    if (char === 91 || char === 123) flow += 1;
    else if (char === 93 || char === 125) flow = Math.max(0, flow - 1);
    if (atLineStart) {
      const next = text.charCodeAt(index + 1);
      const spaceNext = next === 32 || next === 9 || next === 10 || Number.isNaN(next);
      if (char === 32 || char === 9) block += 1;
      else if ((char === 45 || char === 63 || char === 58) /* - ? : */ && spaceNext) block += 1;
      else atLineStart = false;
    }
    deepest = Math.max(deepest, flow + block);
  }
  return deepest;
}

/** A syntax tree's depth, walked with a list rather than recursion so that no depth overflows. */
export function treeDepth(root: object): number {
  let deepest = 0;
  const pending: Array<[node: object, depth: number]> = [[root, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    deepest = Math.max(deepest, depth);
    const children = (node as { children?: unknown }).children;
    if (Array.isArray(children)) for (const child of children) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** The problem text for a file nested past `MAX_NESTING`. */
export const tooDeep = (path: string, depth: number) =>
  `${path} is nested too deeply to check (${depth} levels; at most ${MAX_NESTING}): simplify the nesting.`;
