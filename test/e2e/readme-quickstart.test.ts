import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../support/e2e.js';
import { CLI, type ServerProcess, spawnInGroup, startServerProcess } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';

/**
 * The shell blocks of the README's "Your first job in five minutes" that follow a
 * `<!-- quickstart:run -->` marker, in order: what a newcomer types after starting the server.
 */
function quickstartBlocks(readme: string): string[] {
  const start = readme.indexOf('## Your first job in five minutes');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/<!-- quickstart:run -->\s*```sh\n([\s\S]*?)```/g)].map(
    (match) => match[1] ?? '',
  );
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

// The README's quickstart as written, against the built server with a scripted model, in a
// directory, HOME and data directory of its own. It fails when a command the README gives breaks.
describe("the README's quickstart", () => {
  let dir: string;
  let model: ScriptedModelServer;
  let server: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-readme-'));
    // `npx agentjobs` in a checkout runs its built CLI; this stands in for npx without the registry.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, 'npx'),
      `#!/bin/sh\n[ "$1" = agentjobs ] || { echo "npx $1: not in this test" >&2; exit 127; }\nshift\nexec "${process.execPath}" "${CLI}" "$@"\n`,
      { mode: 0o755 },
    );
    model = await startScriptedModel();
    env = {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: dir,
      AGENTJOBS_DATA_DIR: path.join(dir, '.agentjobs'),
    };
    server = await startServerProcess({
      ...env,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_ADMIN_PASSWORD: 'readme-quickstart-password',
    });
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ends with the page merged into main of the sample repository', { timeout: 180_000 }, async () => {
    const blocks = quickstartBlocks(fs.readFileSync('README.md', 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
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

    // What the user fills in from what the commands printed, as they go.
    const filled: Record<string, string> = { 'http://127.0.0.1:8080': server.url };
    const fill = (block: string) =>
      Object.entries(filled).reduce(
        (text, [placeholder, value]) => text.replaceAll(placeholder, value),
        block,
      );
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

    const job = JSON.parse(await run(create)) as { id: string; status: string };
    expect(job.status).toBe('active');
    filled['<JOB_ID>'] = job.id;

    const watched = await run(watch);
    expect(watched).toContain('event: status');
    expect(watched).toMatch(/completed/);

    const merged = await run(merge);
    expect(merged).toMatch(/Merged #1 .* into main/);
    for (const block of rest) await run(block);

    // The page is in main, and in the working copy's files, which git finds clean.
    expect(git(repository, 'show', 'main:docs/faq.md')).toContain('How do I install the CLI?');
    expect(git(repository, 'show', 'main:README.md')).toContain('[FAQ](docs/faq.md)');
    expect(fs.readFileSync(path.join(repository, 'docs', 'faq.md'), 'utf8')).toContain('acme-cli');
    expect(git(repository, 'status', '--porcelain')).toBe('');
  });
});
