// What compaction and prompt caching save on a long run: the real agent (src/agent) with the real
// @ai-sdk/anthropic client against the Anthropic protocol double of the tests, which simulates
// Anthropic's prompt cache. The run reads 30 pages of about 8 KB each, then answers.
// - "no compaction": a window so large that nothing is compacted (as before issue 17);
// - "compaction": a 40,000-token window, so older reads become notes.
// Both runs carry cache breakpoints. Billed input is in input-token equivalents at Anthropic's
// rates: fresh input × 1, cache writes × 1.25, cache reads × 0.1; without breakpoints (before issue
// 17) every input token is fresh, so the "uncached" column is what the same requests cost then.
// Run: npm run bench:context
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { runAgent } from '../src/agent/loop.ts';
import { ensureMirror } from '../src/git/mirror.ts';
import { Workspace } from '../src/git/workspace.ts';
import { startAnthropicDouble } from '../test/support/anthropic-double.ts';
import { machine, printTable } from './table.mjs';

const PAGES = 30;
const page = (number) =>
  `# Page ${number}\n\n${Array.from({ length: 60 }, (_, line) => `Line ${line + 1} of page ${number}: a reviewer reads the diff of each job before it is merged into the docs.`).join('\n')}\n`;

async function run(windowTokens) {
  const root = mkdtempSync(join(tmpdir(), 'agentjobs-bench-context-'));
  const upstream = join(root, 'site');
  mkdirSync(join(upstream, 'pages'), { recursive: true });
  for (let number = 1; number <= PAGES; number++)
    writeFileSync(join(upstream, 'pages', `page-${number}.md`), page(number));
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: upstream,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'b',
        GIT_AUTHOR_EMAIL: 'b@b',
        GIT_COMMITTER_NAME: 'b',
        GIT_COMMITTER_EMAIL: 'b@b',
      },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'pages');
  const mirrorPath = await ensureMirror({
    mirrorsDir: join(root, 'mirrors'),
    projectId: 'bench',
    repository: upstream,
    env: {},
  });
  const workspace = await Workspace.create({
    mirrorPath,
    dir: join(root, 'work'),
    branch: 'bench',
    baseRef: 'main',
  });
  const double = await startAnthropicDouble({
    script: [
      ...Array.from({ length: PAGES }, (_, index) => ({
        toolCalls: [{ name: 'read_file', input: { path: `pages/page-${index + 1}.md` } }],
      })),
      { text: 'Read every page' },
    ],
  });
  try {
    const events = [];
    await runAgent({
      model: createAnthropic({ apiKey: 'bench', baseURL: double.url })('claude-sonnet-4-5'),
      workspace,
      history: [],
      prompts: ['Read every page'],
      takePendingPrompts: async () => [],
      limits: { maxSteps: 100, maxWallMs: 300_000, maxTokens: 100_000_000, maxFilesChanged: 10 },
      signal: new AbortController().signal,
      onEvent: async (type, data) => void events.push({ type, data }),
      contextTokens: windowTokens,
    });
    return {
      requests: double.requests,
      compactions: events.filter((event) => event.type === 'context').length,
    };
  } finally {
    await workspace.close();
    await double.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const billed = (u) => u.input_tokens + 1.25 * u.cache_creation_input_tokens + 0.1 * u.cache_read_input_tokens;
const total = (u) => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)}`;

console.log(`${machine()}\n`);
const before = await run(1_000_000);
const after = await run(40_000);
const steps = [1, 5, 10, 15, 20, 25, 30, 31];
printTable(
  [
    'step',
    'request KiB, no compaction',
    'request KiB, compaction',
    'input tokens, no compaction',
    'billed, uncached',
    'billed, cached',
    'input tokens, compaction',
    'billed, compaction + cache',
  ],
  steps.map((step) => {
    const [b, a] = [before.requests[step - 1], after.requests[step - 1]];
    return [
      String(step),
      kb(b.bytes),
      kb(a.bytes),
      String(total(b.usage)),
      String(total(b.usage)),
      String(Math.round(billed(b.usage))),
      String(total(a.usage)),
      String(Math.round(billed(a.usage))),
    ];
  }),
);
const sum = (requests, pick) => requests.reduce((acc, request) => acc + pick(request), 0);
console.log('');
printTable(
  [
    'whole run (31 steps)',
    'request MiB',
    'input tokens',
    'billed input (token equivalents)',
    'input cost at $3/M',
    'compactions',
  ],
  [
    [
      'no compaction, no cache (before)',
      (sum(before.requests, (r) => r.bytes) / 2 ** 20).toFixed(2),
      String(sum(before.requests, (r) => total(r.usage))),
      String(sum(before.requests, (r) => total(r.usage))),
      `$${((sum(before.requests, (r) => total(r.usage)) * 3) / 1e6).toFixed(3)}`,
      '0',
    ],
    [
      'no compaction, cache',
      (sum(before.requests, (r) => r.bytes) / 2 ** 20).toFixed(2),
      String(sum(before.requests, (r) => total(r.usage))),
      String(Math.round(sum(before.requests, (r) => billed(r.usage)))),
      `$${((sum(before.requests, (r) => billed(r.usage)) * 3) / 1e6).toFixed(3)}`,
      String(before.compactions),
    ],
    [
      'compaction (40k window), cache',
      (sum(after.requests, (r) => r.bytes) / 2 ** 20).toFixed(2),
      String(sum(after.requests, (r) => total(r.usage))),
      String(Math.round(sum(after.requests, (r) => billed(r.usage)))),
      `$${((sum(after.requests, (r) => billed(r.usage)) * 3) / 1e6).toFixed(3)}`,
      String(after.compactions),
    ],
  ],
);
