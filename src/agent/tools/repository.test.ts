import { asSchema, type Tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../../../test/support/agent-fixture.js';
import { type CodeRepository, createCodeRepository } from '../../../test/support/context-fixture.js';
import { Snapshot } from '../../git/snapshot.js';
import { type AgentTools, createTools } from './index.js';

// The read tools' `repository`: a context repository read at its commit, with the content
// repository's confinement; the write tools never take it.

let fixture: Fixture;
let code: CodeRepository;
const snapshots: Snapshot[] = [];

beforeAll(async () => {
  fixture = await createFixture({ files: { 'README.md': '# Docs\n', 'docs/cli.md': '# CLI\n' } });
  code = await createCodeRepository();
});

afterAll(async () => {
  for (const each of snapshots) await each.close();
  await fixture.cleanup();
  code.cleanup();
});

/** Tools over a fresh workspace, with the code repository as `code` (and `api`) unless `none`. */
async function toolsFor(none = false): Promise<AgentTools> {
  const workspace = await fixture.workspace({ maxFileBytes: 16384 });
  const repositories = none
    ? []
    : ['code', 'api'].map((name) => {
        const snapshot = Snapshot.open({ gitDir: code.gitDir, commit: code.first, maxFileBytes: 16384 });
        snapshots.push(snapshot);
        return { name, ref: 'main', commit: code.first, snapshot };
      });
  return createTools(workspace, { onPlan: () => {}, checkChange: () => null, repositories });
}

/** Runs a tool as the SDK would, its input checked by its schema first. */
async function run(tools: AgentTools, name: keyof AgentTools, input: unknown): Promise<string> {
  const tool = tools[name] as Tool<unknown, string>;
  const checked = await asSchema(tool.inputSchema).validate?.(input);
  if (checked && !checked.success) throw checked.error;
  return (await tool.execute?.(input, { toolCallId: 'test', messages: [] })) as string;
}

/** What zod says of a key the schema does not have, as the model reads it in the tool error. */
const UNRECOGNIZED = /"code": "unrecognized_keys",\s+"keys": \[\s+"repository"/;

async function schemaOf(tools: AgentTools, name: keyof AgentTools) {
  return JSON.stringify(await asSchema((tools[name] as Tool).inputSchema).jsonSchema);
}

describe('the repository of the read tools', () => {
  it('is in their schemas, with the names, only when the run has context repositories', async () => {
    const without = await toolsFor(true);
    const withSome = await toolsFor();
    for (const name of ['list_files', 'read_file', 'search_files'] as const) {
      expect(await schemaOf(without, name)).not.toContain('repository"');
      expect(await schemaOf(withSome, name)).toContain('"repository":{"description":"A context repository');
      expect(await schemaOf(withSome, name)).toContain('\\"code\\", \\"api\\"');
    }
    for (const name of ['write_file', 'edit_file', 'delete_file', 'move_file'] as const)
      expect(await schemaOf(withSome, name)).toBe(await schemaOf(without, name));
  });

  it('reads, lists and searches a context repository at its commit, not at a later one', async () => {
    const tools = await toolsFor();
    expect(await run(tools, 'list_files', { repository: 'code', path: 'src' })).toBe(
      '2 files under src (repository code):\nsrc/cli.ts\nsrc/config.ts',
    );
    expect(await run(tools, 'read_file', { repository: 'code', path: 'src/config.ts' })).toBe(
      'src/config.ts (repository code) (lines 1-1 of 1):\n1\texport const defaults = { timeoutSeconds: 45 };',
    );
    expect(await run(tools, 'read_file', { repository: 'code', path: 'cli-link.ts' })).toContain('--dry-run');
    expect(await run(tools, 'search_files', { repository: 'api', query: 'dry-run' })).toBe(
      "1 matching line for \"dry-run\" (repository api):\nsrc/cli.ts:2:   '--dry-run': 'Build and check without deploying',",
    );
    // src/later.ts and its flag are in a later commit of main.
    await expect(run(tools, 'read_file', { repository: 'code', path: 'src/later.ts' })).rejects.toThrow(
      /does not exist/,
    );
    expect(await run(tools, 'search_files', { repository: 'code', query: '--later-flag' })).toBe(
      'No lines match "--later-flag" (repository code).',
    );
    // Without repository, the content repository.
    expect(await run(tools, 'list_files', {})).toBe('2 files in the repository:\nREADME.md\ndocs/cli.md');
    await expect(run(tools, 'read_file', { path: 'src/cli.ts' })).rejects.toThrow(/does not exist/);
  });

  it('refuses an unknown repository, naming the ones there are', async () => {
    const tools = await toolsFor();
    const inputs = { list_files: {}, read_file: { path: 'README.md' }, search_files: { query: 'x' } };
    for (const [name, input] of Object.entries(inputs))
      await expect(run(tools, name as keyof AgentTools, { ...input, repository: 'docs' })).rejects.toThrow(
        'There is no repository "docs". The context repositories are "code", "api"; leave out repository to use the content repository.',
      );
  });

  it('is refused as input when the run has no context repositories, not silently dropped', async () => {
    const tools = await toolsFor(true);
    await expect(run(tools, 'read_file', { repository: 'code', path: 'README.md' })).rejects.toThrow(
      UNRECOGNIZED,
    );
    await expect(run(tools, 'list_files', { repository: 'code' })).rejects.toThrow(UNRECOGNIZED);
  });

  it.each([
    ['..', '../secret', /outside the repository/],
    ['an absolute path', '/etc/passwd', /absolute path/],
    ['.git', '.git/config', /inside \.git/],
    ['a symlink leading out', 'evil', /symbolic link .* outside the repository/],
    ['a quoted name', '"quoted".md', /double quote/],
    ['a binary file', 'logo.png', /binary file/],
    ['a file too large', 'big.txt', /20000 bytes; files over 16384 bytes/],
  ])('holds the content repository’s rules in a context repository: %s', async (_row, path, message) => {
    const tools = await toolsFor();
    await expect(run(tools, 'read_file', { repository: 'code', path })).rejects.toThrow(message);
  });

  it('refuses confinement breaks when listing and searching a context repository', async () => {
    const tools = await toolsFor();
    await expect(run(tools, 'list_files', { repository: 'code', path: '../' })).rejects.toThrow(
      /outside the repository/,
    );
    await expect(
      run(tools, 'search_files', { repository: 'code', query: 'x', path: '.git' }),
    ).rejects.toThrow(/inside \.git/);
    await expect(
      run(tools, 'search_files', { repository: 'code', query: 'root', path: 'evil' }),
    ).rejects.toThrow(/outside the repository/);
  });

  it('is refused by every write tool, which changes nothing', async () => {
    const tools = await toolsFor();
    const calls: [keyof AgentTools, Record<string, string>][] = [
      ['write_file', { path: 'src/cli.ts', content: 'x' }],
      ['edit_file', { path: 'src/cli.ts', old_text: 'dry', new_text: 'wet' }],
      ['delete_file', { path: 'src/cli.ts' }],
      ['move_file', { from: 'src/cli.ts', to: 'src/other.ts' }],
    ];
    for (const [name, input] of calls)
      await expect(run(tools, name, { ...input, repository: 'code' })).rejects.toThrow(UNRECOGNIZED);
    expect(await run(tools, 'list_files', {})).toBe('2 files in the repository:\nREADME.md\ndocs/cli.md');
  });
});
