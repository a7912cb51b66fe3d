/**
 * The built-in demo model (`AGENTJOBS_MODEL=demo`, `agentjobs quickstart --demo`; docs/architecture.md#the-runs-phases): an AI
 * SDK language model that needs no account and costs nothing, so a newcomer sees a whole job (its
 * events, checks and pull request) before choosing a provider. It goes through the real tools like
 * any model: it lists the repository, reads the file that will link its page, writes one page titled
 * from the prompt and labelled as the demo's (`demo-change.ts`), links it, and ends with a summary
 * that says a demo model made it.
 *
 * It keeps no state: each call reads what to do next from the conversation it is sent, the user's
 * latest words and the tools' answers since then, so follow-ups, retries and restarts of a job work
 * as they do with any model. The notes the service adds (`service-notes.ts`) are never taken for
 * the request: a restart continues the round it interrupted.
 */
import type { LanguageModel } from 'ai';
import { DEMO_MODEL_ID } from '../domain/model-id.js';
import {
  DEMO_NOTE,
  type DemoSite,
  findSite,
  freePath,
  hasFrontMatter,
  linkEdit,
  listedPaths,
  mkdocsFolder,
  pageContent,
  REAL_MODEL_HINT,
  readText,
  slugOf,
  titleFrom,
} from './demo-change.js';
import { conflictedFiles, resolveBothSides } from './demo-conflicts.js';
import { RESUMED_WITHOUT_FILES, splitNotes } from './service-notes.js';

type LanguageModelV3 = Extract<LanguageModel, { specificationVersion: 'v3' }>;
type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;
type StreamPart =
  Awaited<ReturnType<LanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never;

/** One tool call the demo makes; `purpose` names it, so later calls find its answer. */
interface Call {
  purpose: string;
  toolName: string;
  input: Record<string, unknown>;
}

/** What the demo does next: call tools, or answer with its summary. */
type Move = { calls: Call[] } | { text: string };

/** A tool's answer in this round, by the purpose of its call. */
interface Answer {
  text: string;
  failed: boolean;
}

/** What the demo has learned in this round: the request and the tools' answers. */
interface Round {
  number: number;
  /** The user's latest words, without the notes the service put before them. */
  request: string;
  /** The service's notes in this round (a follow-up's word on its branch, a restart's). */
  notes: string[];
  /** The demo's last answer before this round, or '' (a repair round keeps its title). */
  earlier?: string;
  answers: Map<string, Answer>;
}

// Its usage is zero: nothing was sent to any model, and the price table prices it at nothing.
const NO_USAGE: GenerateResult['usage'] = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** The demo model, a new instance per job like every provider's. */
export function createDemoModel(): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'agentjobs',
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},
    async doGenerate(options) {
      options.abortSignal?.throwIfAborted();
      const move = nextMove(readRound(options.prompt));
      return {
        content: 'text' in move ? [{ type: 'text', text: move.text }] : move.calls.map(toolCall(options)),
        finishReason: finish(move),
        usage: NO_USAGE,
        response: { id: `demo-${Date.now()}`, modelId: DEMO_MODEL_ID, timestamp: new Date() },
        warnings: [],
      };
    },
    async doStream(options) {
      options.abortSignal?.throwIfAborted();
      const move = nextMove(readRound(options.prompt));
      const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if ('text' in move) {
        parts.push(
          { type: 'text-start', id: 'text' },
          { type: 'text-delta', id: 'text', delta: move.text },
          { type: 'text-end', id: 'text' },
        );
      } else {
        parts.push(...move.calls.map(toolCall(options)));
      }
      parts.push({ type: 'finish', usage: NO_USAGE, finishReason: finish(move) });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

const finish = (move: Move) =>
  'text' in move
    ? { unified: 'stop' as const, raw: 'stop' }
    : { unified: 'tool-calls' as const, raw: 'tool_use' };

/** A call as the SDK wants it; its id carries the round and the purpose (see `readRound`). */
function toolCall(options: CallOptions) {
  const round = countUserMessages(options.prompt);
  return (call: Call) => ({
    type: 'tool-call' as const,
    toolCallId: `demo-${round}-${call.purpose}`,
    toolName: call.toolName,
    input: JSON.stringify(call.input),
  });
}

/** A user message's text. */
function textOf(message: CallOptions['prompt'][number]): string {
  if (message.role !== 'user') return '';
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/**
 * The user messages that carry the user's own words. A message that is only the service's notes
 * (a resumed run's word on the restart) starts no round: the demo continues the one it was in.
 */
const userRounds = (prompt: CallOptions['prompt']) =>
  prompt.flatMap((message, index) =>
    message.role === 'user' && splitNotes(textOf(message)).words !== '' ? [index] : [],
  );

const countUserMessages = (prompt: CallOptions['prompt']) => userRounds(prompt).length;

/** Calls whose work on files a restart may have lost: made again when the service says so. */
const WRITES = /^(write|link|resolve-)/;

/** The user's latest words, the service's notes, and the answers to the demo's calls since then. */
function readRound(prompt: CallOptions['prompt']): Round {
  const rounds = userRounds(prompt);
  const number = rounds.length;
  const last = rounds.at(-1) ?? -1;
  const { notes, words: request } =
    last < 0 ? { notes: [], words: '' } : splitNotes(textOf(prompt[last] as CallOptions['prompt'][number]));
  const answers = new Map<string, Answer>();
  const prefix = `demo-${number}-`;
  for (const message of prompt.slice(last + 1)) {
    if (message.role === 'user') {
      notes.push(...splitNotes(textOf(message)).notes);
      // The files written before the restart are gone: those calls are made again.
      if (textOf(message).includes(RESUMED_WITHOUT_FILES))
        for (const purpose of [...answers.keys()]) if (WRITES.test(purpose)) answers.delete(purpose);
    }
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || !part.toolCallId.startsWith(prefix)) continue;
      const output = part.output;
      const text =
        output.type === 'text' || output.type === 'error-text'
          ? output.value
          : output.type === 'content'
            ? output.value.map((item) => (item.type === 'text' ? item.text : '')).join('\n')
            : JSON.stringify('value' in output ? output.value : output);
      answers.set(part.toolCallId.slice(prefix.length), {
        text,
        failed: output.type.startsWith('error') || output.type === 'execution-denied',
      });
    }
  }
  const earlier = prompt
    .slice(0, Math.max(last, 0))
    .findLast(
      (message) =>
        message.role === 'assistant' &&
        message.content.some((part) => typeof part !== 'string' && part.type === 'text'),
    );
  const earlierText =
    earlier?.role === 'assistant' && typeof earlier.content !== 'string'
      ? earlier.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
      : '';
  return { number, request, notes, answers, earlier: earlierText };
}

/** What the plan shows, with the first `done` items completed. */
function plan(done: number): Call {
  const steps = [
    'Look at the repository',
    'Write a page labelled as the demo model’s',
    'Link it',
    'Summarize',
  ];
  const items = steps.map((content, index) => ({
    content,
    status: index < done ? 'completed' : index === done ? 'in_progress' : 'pending',
  }));
  return { purpose: `plan-${done}`, toolName: 'update_plan', input: { items } };
}

/** The next move in a round: list, read, look for a free name, write and link, then summarize. */
export function nextMove(round: Round): Move {
  const { answers, request } = round;
  // The worker's repair prompt after failed checks: the demo's changes are built to pass them, and
  // it cannot fix anything else, so it says so instead of writing another page.
  // Its answer keeps the title of the work it did: the pull request is still that work.
  if (/found by the project's checks/.test(request)) {
    const note = `The checks found problems in this change, and the agentjobs demo model cannot fix problems the checks report; no AI model was used. To have them fixed, ${REAL_MODEL_HINT}.`;
    const earlier = round.earlier?.trim() ?? '';
    if (!earlier) return { text: `Demo: the change\n\n${note}` };
    const [title, ...rest] = earlier.split('\n\n');
    return { text: [title, note, ...rest].join('\n\n') };
  }
  const resolved = resolveConflicts(conflictedFiles(round.notes), answers);
  if (resolved && 'calls' in resolved) return resolved;
  if (resolved && (isAboutConflicts(request) || request === ''))
    return { text: `Demo: resolve the conflicts\n\n${resolved.said}\n\n${DEMO_LABEL}` };
  const listing = answers.get('list');
  if (!listing) return { calls: [plan(0), { purpose: 'list', toolName: 'list_files', input: {} }] };
  const files = listing.failed ? [] : listedPaths(listing.text);
  const site = findSite(files);

  const reads: Call[] = [];
  if (site.linkFrom)
    reads.push({ purpose: 'read-link', toolName: 'read_file', input: { path: site.linkFrom } });
  if (site.sample)
    reads.push({ purpose: 'read-sample', toolName: 'read_file', input: { path: site.sample, limit: 5 } });
  if (reads.length > 0 && !reads.some((call) => answers.has(call.purpose))) return { calls: reads };
  const linkText = usable(answers.get('read-link'));
  const sampleText = usable(answers.get('read-sample'));
  const folder = site.kind === 'mkdocs' && linkText !== null ? mkdocsFolder(site, linkText) : site.folder;

  const title = titleFrom(request);
  const slug = slugOf(title);
  // The listing may be cut short in a large repository: ask for the names this page could take.
  const probe = answers.get('probe');
  if (!probe)
    return {
      calls: [
        {
          purpose: 'probe',
          toolName: 'list_files',
          input: { ...(folder ? { path: folder } : {}), pattern: `${slug}*${site.extension}` },
        },
      ],
    };
  const taken = new Set([...files, ...(probe.failed ? [] : listedPaths(probe.text))]);
  const page = freePath(folder, slug, site.extension, taken);

  const write = answers.get('write');
  const edit = linkText === null ? null : linkEdit({ ...site, folder }, linkText, page, title);
  if (!write) {
    const frontMatter = site.kind === 'mintlify' || (sampleText !== null && hasFrontMatter(sampleText));
    const content = pageContent({
      title,
      prompt: request,
      frontMatter,
      kind: site.kind,
      filesListed: files.length,
    });
    const calls: Call[] = [
      plan(1),
      { purpose: 'write', toolName: 'write_file', input: { path: page, content } },
    ];
    if (edit) calls.push({ purpose: 'link', toolName: 'edit_file', input: { ...edit } });
    return { calls };
  }
  const said = summary({ title, page, files: files.length, site, write, link: answers.get('link') ?? null });
  return { text: resolved ? said.replace('\n\n', `\n\n${resolved.said}\n\n`) : said };
}

const isAboutConflicts = (request: string) => /\b(conflict|resolve|merge)/i.test(request);

/**
 * The conflicts the service's note names, resolved by keeping both sides (demo-conflicts.ts): the
 * calls still to make, or what was done. Null when the note names none.
 */
function resolveConflicts(
  files: string[],
  answers: Map<string, Answer>,
): { calls: Call[] } | { said: string } | null {
  if (files.length === 0) return null;
  const reads = files.map((path, index) => ({
    purpose: `conflict-${index}`,
    toolName: 'read_file',
    input: { path, limit: 2000 },
  }));
  if (reads.some((call) => !answers.has(call.purpose))) return { calls: reads };
  const resolutions = files.map((path, index) => {
    const answer = answers.get(`conflict-${index}`) as Answer;
    return { path, index, resolved: answer.failed ? null : resolveBothSides(answer.text) };
  });
  const writes: Call[] = resolutions.flatMap(({ path, index, resolved }) =>
    resolved
      ? [{ purpose: `resolve-${index}`, toolName: 'write_file', input: { path, content: resolved.content } }]
      : [],
  );
  if (writes.some((call) => !answers.has(call.purpose))) return { calls: writes };
  const done = resolutions.flatMap(({ path, index, resolved }) =>
    resolved && !answers.get(`resolve-${index}`)?.failed
      ? [`${path} (the lines of ${resolved.ours} first, then those of ${resolved.theirs})`]
      : [],
  );
  const left = resolutions.filter(({ path }) => !done.some((each) => each.startsWith(`${path} (`)));
  const kept =
    done.length > 0
      ? `The demo model resolved the merge conflicts plainly, keeping both sides of each, in ${done.join(', ')}: read the result before merging, as a real model would weigh what each side meant instead.`
      : '';
  const notDone =
    left.length > 0
      ? ` It could not resolve ${left.map(({ path }) => path).join(', ')}, which keep their conflict markers.`
      : '';
  return { said: `${kept}${notDone}`.trim() };
}

/** A read's text, or null when it failed or never happened. */
function usable(answer: Answer | undefined): string | null {
  return answer && !answer.failed ? readText(answer.text) : null;
}

/** The final answer: what the demo did, that it was the demo, and how to get a real model. */
function summary(done: {
  title: string;
  page: string;
  files: number;
  site: DemoSite;
  write: Answer;
  link: Answer | null;
}): string {
  const { title, page, site } = done;
  const heading = `Demo: add the page “${title}”`;
  const label = DEMO_LABEL;
  if (done.write.failed)
    return `${heading}\n\nThe demo model could not write ${page}: ${firstLine(done.write.text)}\n\n${label}`;
  const linked = !done.link
    ? site.linkFrom
      ? ` ${site.linkFrom} has no list of links or navigation to add it to, so it is not linked.`
      : ' The repository has no README or navigation to link it from.'
    : done.link.failed
      ? ` It could not link it from ${site.linkFrom}: ${firstLine(done.link.text)}`
      : ` It linked the page from ${site.linkFrom}.`;
  return `${heading}\n\n${label}\n\nIt looked at the repository's ${done.files} files and wrote ${page}, a page titled “${title}” that quotes the request and says: “${DEMO_NOTE}”${linked}`;
}

/** What every summary of the demo's says about who made the change. */
const DEMO_LABEL = `The agentjobs demo model made this change; no AI model was used. To have a real model do the work, ${REAL_MODEL_HINT}.`;

const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';
