import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/eval/runner.js';
import { copySite } from '../../src/eval/site.js';
import { findTasks } from '../../src/eval/task.js';
import { answer, callsOf, callTools, type ModelTurn, scriptedModel } from '../support/agent-fixture.js';
import { evalOptions } from '../support/eval-fixture.js';

// A suite is somebody's folder of task files and sites: what a task names stays inside it, and
// nothing of a site runs or leaks. The secret lives beside the suite, where a task must not reach.

const SECRET = 'secret-that-stays-outside-the-suite-7f3a';

let root: string;
let suite: string;
let marker: string;

const write = (path: string, content: string, mode?: number) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, mode === undefined ? {} : { mode });
};
const task = (name: string, site: string) =>
  `name: ${name}\nsite: ${site}\nprompt: Which page covers setup?\nexpect:\n  - unchanged: true\n`;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-eval-hostile-'));
  suite = join(root, 'suite');
  marker = join(root, 'ran.marker');
  write(join(root, 'outside', 'secret.txt'), `${SECRET}\n`);

  // A site that is a git repository of its own: hooks and core.fsmonitor write the marker.
  const hooked = join(suite, 'sites', 'hooked');
  write(join(hooked, 'index.md'), '# Setup\n\nRun the installer.\n');
  execFileSync('git', ['init', '-q', '-b', 'main', hooked]);
  const script = (name: string) => `#!/bin/sh\necho ${name} >> '${marker}'\ncat > /dev/null\n`;
  for (const hook of ['pre-commit', 'post-commit', 'post-checkout', 'reference-transaction'])
    write(join(hooked, '.git', 'hooks', hook), script(hook), 0o755);
  write(join(root, 'fsmonitor.sh'), script('fsmonitor'), 0o755);
  execFileSync('git', ['-C', hooked, 'config', 'core.fsmonitor', join(root, 'fsmonitor.sh')]);
  write(join(suite, 'tasks', 'hooked.yaml'), task('hooked', '../sites/hooked'));

  // A site with a symlink to the secret beside an ordinary page.
  const leaky = join(suite, 'sites', 'leaky');
  write(join(leaky, 'index.md'), '# Setup\n\nSee the notes.\n');
  symlinkSync(join(root, 'outside', 'secret.txt'), join(leaky, 'notes.md'));
  write(join(suite, 'tasks', 'leaky.yaml'), task('leaky', '../sites/leaky'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const options = (turns: ModelTurn[]) =>
  evalOptions(scriptedModel(turns), { maxSteps: 10, maxFilesChanged: 5 });

describe('a hostile eval suite', () => {
  it("runs a site's task without its .git: no hook and no fsmonitor of it runs", async () => {
    const [hooked] = (await findTasks([join(suite, 'tasks')])).filter((each) => each.name === 'hooked');
    const outcome = await runTask(
      hooked as NonNullable<typeof hooked>,
      options([callTools([['read_file', { path: 'index.md' }]]), answer('index.md covers setup.')]),
    );
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('');
    expect(outcome.failures).toEqual([]);
  });

  it('refuses a task whose site is outside the suite, by a path or through a symlink', async () => {
    const climbing = join(root, 'escape');
    write(join(climbing, 'tasks', 'up.yaml'), task('up', '../../outside'));
    await expect(findTasks([join(climbing, 'tasks')])).rejects.toThrow(
      /up\.yaml: task up: site: \.\.\/\.\.\/outside is .*outside, outside the suite's folder/,
    );

    const linked = join(root, 'linked');
    write(join(linked, 'link.yaml'), task('link', 'sites/elsewhere'));
    mkdirSync(join(linked, 'sites'));
    symlinkSync(join(root, 'outside'), join(linked, 'sites', 'elsewhere'));
    await expect(findTasks([join(linked, 'link.yaml')])).rejects.toThrow(
      /link\.yaml: task link: site: sites\/elsewhere is .*outside, outside the suite's folder/,
    );
  });

  it('refuses expectations that read outside the result', async () => {
    const reader = join(root, 'reader');
    write(join(reader, 'sites', 'plain', 'index.md'), '# Setup\n');
    write(
      join(reader, 'read.yaml'),
      'name: read\nsite: sites/plain\nprompt: x\nexpect:\n  - path: ../../outside/secret.txt\n    contains: [secret]\n',
    );
    await expect(findTasks([reader])).rejects.toThrow(/read\.yaml: expect\.0\.path: must be a relative path/);
  });

  it('refuses commands of the wrong shape, naming the field', async () => {
    const commands = join(root, 'commands');
    write(join(commands, 'sites', 'plain', 'index.md'), '# Setup\n');
    const cases: [string, RegExp][] = [
      ['agentCommands: "yes"', /bad\.yaml: agentCommands: /],
      ['command: ""', /bad\.yaml: command: /],
      ['setup: [npm, ci]', /bad\.yaml: setup: /],
      ['commands: npm test', /bad\.yaml: task: Unrecognized key: "commands"/],
    ];
    for (const [line, error] of cases) {
      write(join(commands, 'bad.yaml'), `${task('bad', 'sites/plain')}${line}\n`);
      await expect(findTasks([join(commands, 'bad.yaml')]), line).rejects.toThrow(error);
    }
  });

  it('sends the model nothing of a secret that a symlink in the site leads to', async () => {
    const [leaky] = (await findTasks([suite])).filter((each) => each.name === 'leaky');
    const model = scriptedModel([
      callTools([
        ['read_file', { path: 'notes.md' }],
        ['list_files', {}],
        ['search_files', { query: 'secret' }],
      ]),
      answer('index.md covers setup.'),
    ]);
    const outcome = await runTask(leaky as NonNullable<typeof leaky>, { ...options([]), model });
    expect(JSON.stringify(callsOf(model))).not.toContain(SECRET);
    expect(outcome.failures).toEqual(['run: site: notes.md is a symlink that leads outside the site']);
  });
});

describe('copySite', () => {
  it('copies files and links inside the site as links, leaving out every .git', async () => {
    const site = join(root, 'copy-site');
    write(join(site, 'docs', 'page.md'), 'page\n');
    write(join(site, '.git', 'config'), '[core]\n');
    write(join(site, 'vendor', '.git'), 'gitdir: /elsewhere\n');
    symlinkSync('docs/page.md', join(site, 'alias.md'));
    const target = join(root, 'copy-target');
    await copySite(site, target);
    expect(readFileSync(join(target, 'docs', 'page.md'), 'utf8')).toBe('page\n');
    expect(lstatSync(join(target, 'alias.md')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(target, 'alias.md'))).toBe('docs/page.md');
    expect(existsSync(join(target, '.git'))).toBe(false);
    expect(existsSync(join(target, 'vendor', '.git'))).toBe(false);
  });

  it('refuses a link that leads nowhere', async () => {
    const site = join(root, 'dangling-site');
    write(join(site, 'index.md'), '# Home\n');
    symlinkSync('missing.md', join(site, 'gone.md'));
    await expect(copySite(site, join(root, 'dangling-target'))).rejects.toThrow(
      'site: gone.md is a symlink that leads nowhere',
    );
  });
});
