/**
 * How the demo model (`demo-model.ts`) resolves the conflicts a follow-up's merge of the base left
 * (run/phases/follow-base.ts): plainly, keeping both sides of each conflict, the job branch's
 * lines first, then the base's, and saying so in its summary. It cannot weigh what each side meant
 * as a real model would; a file it cannot read whole is left as it is, and the checks then say
 * what to do instead (run/checks.ts). Pure: it reads the tools' answers as text.
 */

/** The files the service's note says hold conflict markers; none when no note says so. */
export function conflictedFiles(notes: readonly string[]): string[] {
  const note = notes.find((text) => text.includes('<<<<<<<'));
  if (!note) return [];
  return note
    .split('\n')
    .map((line) => /^- (\S.*)$/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

/** What resolving one file came to: its new text, and the labels of its two sides. */
export interface Resolved {
  content: string;
  ours: string;
  theirs: string;
  blocks: number;
}

/**
 * The text of a `read_file` answer with every conflict resolved by keeping both sides (a line the
 * base's side repeats from the branch's is kept once), or null when the answer is not the whole
 * file (a page of it, or a line cut short) or holds no complete conflict.
 */
export function resolveBothSides(answer: string): Resolved | null {
  const header = /\(lines 1-(\d+) of (\d+)\):$/.exec(answer.split('\n')[0] ?? '');
  if (!header || header[1] !== header[2] || answer.includes('… [line cut,')) return null;
  const lines = answer
    .split('\n')
    .slice(1)
    .map((line) => /^\s*\d+\t(.*)$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined);
  const out: string[] = [];
  let ours = '';
  let theirs = '';
  let blocks = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const end = line.startsWith('<<<<<<<') ? blockEnd(lines, index) : -1;
    if (end < 0) {
      out.push(line);
      continue;
    }
    const block = lines.slice(index, end + 1);
    const middle = block.findIndex((each) => each.startsWith('======='));
    const baseSection = block.findIndex((each) => each.startsWith('|||||||'));
    const ourLines = block.slice(1, baseSection > 0 && baseSection < middle ? baseSection : middle);
    const theirLines = block.slice(middle + 1, -1);
    out.push(...ourLines, ...theirLines.filter((each) => !ourLines.includes(each)));
    ours = line.slice(7).trim();
    theirs = (block.at(-1) as string).slice(7).trim();
    blocks++;
    index = end;
  }
  if (blocks === 0) return null;
  return { content: `${out.join('\n')}\n`, ours: shortRef(ours), theirs: shortRef(theirs), blocks };
}

/** The index of the `>>>>>>>` line closing the conflict opened at `start`, or -1. */
function blockEnd(lines: string[], start: number): number {
  let middle = false;
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.startsWith('<<<<<<<')) return -1;
    if (line.startsWith('=======')) middle = true;
    else if (line.startsWith('>>>>>>>')) return middle ? index : -1;
  }
  return -1;
}

/** `refs/heads/main` → `main`, as a person names the branch. */
const shortRef = (label: string) => label.replace(/^refs\/(heads|remotes)\//, '') || 'one side';
