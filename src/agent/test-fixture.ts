/**
 * Test support for the agent's tests (not used by the service): a real upstream repository, its
 * bare mirror, and `Workspace`s over it, built the way `src/git/workspace.test.ts` builds them.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockLanguageModelV3 } from 'ai/test';
import { ensureMirror } from '../git/mirror.js';
import { runGit } from '../git/run.js';
import { Workspace } from '../git/workspace.js';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.com',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.com',
};

/** What the fixture repository holds: files by path, and symlinks (path → target). */
export interface FixtureContent {
  files: Record<string, string | Buffer>;
  links?: Record<string, string>;
}

/** A repository with one commit on `main`, mirrored, ready for workspaces. */
export interface Fixture {
  root: string;
  mirrorPath: string;
  /** A new workspace on its own job branch. */
  workspace(options?: { maxFileBytes?: number }): Promise<Workspace>;
  /** Closes every workspace made and removes all files. */
  cleanup(): Promise<void>;
}

/** Builds the upstream repository, clones it bare as the "origin" and mirrors it. */
export async function createFixture(content: FixtureContent): Promise<Fixture> {
  const root = mkdtempSync(join(tmpdir(), 'agentjobs-agent-'));
  const upstream = join(root, 'upstream');
  mkdirSync(upstream);
  const git = (cwd: string, ...args: string[]) => runGit(args, { cwd, env: identity });
  await git(upstream, 'init', '--quiet', '--initial-branch=main');
  for (const [path, data] of Object.entries(content.files)) {
    mkdirSync(join(upstream, path, '..'), { recursive: true });
    writeFileSync(join(upstream, path), data);
  }
  for (const [path, target] of Object.entries(content.links ?? {})) symlinkSync(target, join(upstream, path));
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'first');
  await git(root, 'clone', '--quiet', '--bare', upstream, join(root, 'origin.git'));
  const mirrorPath = await ensureMirror({
    mirrorsDir: join(root, 'mirrors'),
    projectId: 'demo',
    repository: join(root, 'origin.git'),
    env: {},
  });
  const open: Workspace[] = [];
  let count = 0;
  return {
    root,
    mirrorPath,
    async workspace(options = {}) {
      count += 1;
      const workspace = await Workspace.create({
        mirrorPath,
        dir: join(root, 'work', `job-${count}`),
        branch: `agentjobs/job-${count}`,
        baseRef: 'main',
        ...options,
      });
      open.push(workspace);
      return workspace;
    },
    async cleanup() {
      for (const workspace of open) await workspace.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** One answer of a scripted model (what `doGenerate` resolves to). */
export type ModelTurn = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

let callCount = 0;

/** Token counts of a scripted turn. */
function usage(input: number, output: number): ModelTurn['usage'] {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** A turn in which the model calls tools (optionally saying something first). */
export function callTools(
  calls: [name: string, input: unknown][],
  options: { text?: string; tokens?: [number, number] } = {},
): ModelTurn {
  const [input, output] = options.tokens ?? [100, 20];
  return {
    content: [
      ...(options.text ? [{ type: 'text' as const, text: options.text }] : []),
      ...calls.map(([toolName, args]) => ({
        type: 'tool-call' as const,
        toolCallId: `call-${++callCount}`,
        toolName,
        input: typeof args === 'string' ? args : JSON.stringify(args),
      })),
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage: usage(input, output),
    warnings: [],
  };
}

/** A final answer. */
export function answer(text: string, tokens: [number, number] = [100, 20]): ModelTurn {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(tokens[0], tokens[1]),
    warnings: [],
  };
}

/** A mock model that plays `turns` in order, one per call, and fails loudly when they run out. */
export function scriptedModel(turns: ModelTurn[]): MockLanguageModelV3 {
  let next = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const turn = turns[next++];
      if (!turn) throw new Error(`the script has only ${turns.length} turns`);
      return turn;
    },
  });
}
