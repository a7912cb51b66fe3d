import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_NOTE } from '../../src/agent/demo-change.js';
import { git } from '../support/e2e.js';
import { CLI, type ServerProcess, spawnInGroup, startServerProcess } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';

/** The two ways the README's quickstart goes: with a model, or with the built-in demo model. */
type Variant = 'model' | 'demo';

/**
 * The shell blocks of the README's "Your first job in five minutes" that follow a
 * `<!-- quickstart:run -->` marker, in order: what a newcomer types after starting the server. A
 * marker may name a variant (`<!-- quickstart:run demo -->`): that block is for that way only.
 */
function quickstartBlocks(readme: string, variant: Variant): string[] {
  const start = readme.indexOf('## Your first job in five minutes');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/<!-- quickstart:run(?: (\w+))? -->\s*```sh\n([\s\S]*?)```/g)]
    .filter((match) => match[1] === undefined || match[1] === variant)
    .map((match) => match[2] ?? '');
}

/** Runs a block with bash as a terminal would, stopping at the first failing command. */
function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawnInGroup('bash', ['-euo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (chunk) => {
        output += chunk;
      });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** A newcomer's machine: a directory, HOME and data directory of their own, and `npx agentjobs`. */
function newcomer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-readme-'));
  // `npx agentjobs` in a checkout runs its built CLI; this stands in for npx without the registry.
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, 'npx'),
    `#!/bin/sh\n[ "$1" = agentjobs ] || { echo "npx $1: not in this test" >&2; exit 127; }\nshift\nexec "${process.execPath}" "${CLI}" "$@"\n`,
    { mode: 0o755 },
  );
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: dir,
    AGENTJOBS_DATA_DIR: path.join(dir, '.agentjobs'),
  };
  return { dir, env };
}

/**
 * Runs the README's blocks of `variant` in order, filling in what the commands printed as a user
 * would, and returns the sample repository's path and what the first block printed.
 */
async function followReadme(variant: Variant, dir: string, env: Record<string, string>, url: string) {
  const blocks = quickstartBlocks(fs.readFileSync('README.md', 'utf8'), variant);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  // What the user fills in from what the commands printed, as they go.
  const filled: Record<string, string> = { 'http://127.0.0.1:8080': url };
  const fill = (block: string) =>
    Object.entries(filled).reduce((text, [placeholder, value]) => text.replaceAll(placeholder, value), block);
  const run = async (block: string) => {
    const text = fill(block);
    // Comments may name placeholders; commands must not be left with one.
    const commands = text.replace(/(^|\s)#.*$/gm, '');
    expect(commands, 'a placeholder the README uses was never printed').not.toMatch(/<[A-Z_]+>|ajs_…/);
    const result = await bash(text, dir, env);
    expect(result.code, `${text}\n→\n${result.output}`).toBe(0);
    return result.output;
  };

  const [quickstart = '', create = '', watch = '', merge = '', ...rest] = blocks;
  const made = await run(quickstart);
  filled['<PROJECT_ID>'] = made.match(/Project:\s+(\S+)/)?.[1] ?? '<PROJECT_ID>';
  filled['ajs_…'] = made.match(/ajs_[A-Za-z0-9]+/)?.[0] ?? 'ajs_…';
  filled['<REPOSITORY>'] = made.match(/Repository:\s+(\S+)/)?.[1] ?? '<REPOSITORY>';
  const repository = filled['<REPOSITORY>'];
  expect(repository).toBe(path.join(dir, '.agentjobs', 'sample-docs'));

  const job = JSON.parse(await run(create)) as { id: string; status: string; model: string };
  expect(job.status).toBe('active');
  expect(job.model).toBe(variant === 'demo' ? 'demo' : 'openai-compatible:scripted');
  filled['<JOB_ID>'] = job.id;

  const watched = await run(watch);
  expect(watched).toContain('event: status');
  expect(watched).toMatch(/completed/);

  const merged = await run(merge);
  expect(merged).toMatch(/Merged #1 .* into main/);
  for (const block of rest) await run(block);
  return { repository, made };
}

// The README's quickstart as written, against the built server with a scripted model. It fails
// when a command the README gives breaks.
describe("the README's quickstart", () => {
  let dir: string;
  let model: ScriptedModelServer;
  let server: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    ({ dir, env } = newcomer());
    model = await startScriptedModel();
    server = await startServerProcess({
      ...env,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_ADMIN_PASSWORD: 'readme-quickstart-password',
    });
    // The server listens on a free port rather than 8080: the commands ask it there, as at 8080.
    env.AGENTJOBS_PUBLIC_URL = server.url;
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ends with the page merged into main of the sample repository', { timeout: 180_000 }, async () => {
    model.setScript([
      {
        toolCalls: [
          {
            name: 'write_file',
            input: {
              path: 'docs/faq.md',
              content:
                '# FAQ\n\n## How do I install the CLI?\n\nRun `npm install --global acme-cli`; see [Install the CLI](install.md).\n',
            },
          },
          {
            name: 'edit_file',
            input: {
              path: 'README.md',
              old_text: '- [Install the CLI](docs/install.md)\n',
              new_text: '- [Install the CLI](docs/install.md)\n- [FAQ](docs/faq.md)\n',
            },
          },
        ],
      },
      { text: 'Add a FAQ page\n\nI added docs/faq.md and linked it from the README.' },
    ]);
    const { repository, made } = await followReadme('model', dir, env, server.url);
    expect(made).not.toContain('Warning');

    // The page is in main, and in the working copy's files, which git finds clean.
    expect(git(repository, 'show', 'main:docs/faq.md')).toContain('How do I install the CLI?');
    expect(git(repository, 'show', 'main:README.md')).toContain('[FAQ](docs/faq.md)');
    expect(fs.readFileSync(path.join(repository, 'docs', 'faq.md'), 'utf8')).toContain('acme-cli');
    expect(git(repository, 'status', '--porcelain')).toBe('');
  });
});

// The same quickstart for a newcomer with no model key at all: `quickstart` says so, and with
// `--demo` the built-in demo model carries the job to a merged, labelled page.
describe("the README's quickstart without a model key", () => {
  let dir: string;
  let server: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    ({ dir, env } = newcomer());
    server = await startServerProcess({
      ...env,
      AGENTJOBS_MODEL: '',
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
      OPENAI_COMPATIBLE_BASE_URL: '',
      OPENAI_COMPATIBLE_API_KEY: '',
      AGENTJOBS_ADMIN_PASSWORD: 'readme-quickstart-password',
    });
    // The server listens on a free port rather than 8080: the commands ask it there, as at 8080.
    env.AGENTJOBS_PUBLIC_URL = server.url;
  });

  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('warns without --demo, and with it ends with the demo page merged into main', {
    timeout: 180_000,
  }, async () => {
    // What a newcomer without a key runs first: the model's block. It warns, with both ways forward.
    const [plain = ''] = quickstartBlocks(fs.readFileSync('README.md', 'utf8'), 'model');
    const warned = await bash(plain, dir, env);
    expect(warned.code, warned.output).toBe(0);
    expect(warned.output).toContain('Warning: the server has no model it can use');
    expect(warned.output).toContain('set ANTHROPIC_API_KEY');
    expect(warned.output).toContain('npx agentjobs quickstart --demo');

    const { repository, made } = await followReadme('demo', dir, env, server.url);
    expect(made).toContain('Model:      demo, the built-in demo model');
    expect(made).not.toContain('Warning');

    const page = git(repository, 'show', 'main:docs/faq.md');
    expect(page).toContain(DEMO_NOTE);
    expect(page).toContain('Add a FAQ page that answers how to install the CLI');
    expect(git(repository, 'show', 'main:README.md')).toContain('[FAQ](docs/faq.md)');
    expect(git(repository, 'status', '--porcelain')).toBe('');
  });
});
