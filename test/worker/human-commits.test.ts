import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import type { ScriptedTurn } from '../support/scripted-model.js';
import { useScriptedWorker } from '../support/scripted-worker.js';
import { git } from '../support/worker.js';

const person = ['-c', 'user.name=Reviewer', '-c', 'user.email=reviewer@example.com'];

// Human work is kept (docs/code-hosts.md): commits a person pushed to a job's branch, before a run
// or while it worked, end up under the run's commits; the branch is never pushed over. The local
// code host, the real agent on the scripted model, real git, a real database.
describe.each(testDialects())("a person's commits on a job's branch, on %s", (dialect) => {
  const scripted = useScriptedWorker({ name: 'human-commits', dialect });
  const store = () => scripted.t.store;
  const projectId = () => scripted.project.id;

  const write = (file: string, content: string): ScriptedTurn => ({
    toolCalls: [{ name: 'write_file', input: { path: file, content } }],
  });

  const create = async (prompt: string, script: ScriptedTurn[]) => {
    scripted.model.setScript(script);
    return scripted.runJob({ prompt });
  };

  const followUp = async (job: Job, prompt: string, script: ScriptedTurn[]) => {
    scripted.model.setScript(script);
    await store().jobs.followUp(projectId(), job.id, prompt);
    return scripted.settled(job.id);
  };

  /** A person's commit of `file` on `branch`, pushed to the repository from a clone of their own; its id. */
  let clones = 0;
  const pushAsPerson = (branch: string, file: string, content: string) => {
    const clone = path.join(scripted.dir, `person-${clones++}`);
    git(scripted.dir, 'clone', '-q', '--branch', branch, scripted.repo, clone);
    fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    fs.writeFileSync(path.join(clone, file), content);
    git(clone, 'add', '-A');
    git(clone, ...person, 'commit', '-q', '-m', `Fix ${file}`);
    git(clone, 'push', '-q', 'origin', branch);
    return git(clone, 'rev-parse', 'HEAD');
  };

  const isAncestor = (commit: string, branch: string) => {
    try {
      git(scripted.repo, 'merge-base', '--is-ancestor', commit, branch);
      return true;
    } catch {
      return false;
    }
  };

  it('starts the next run from the commit a person pushed before it', async () => {
    const job = await create('Add the install page', [
      write('docs/install.md', '# Install\n'),
      { text: 'Install' },
    ]);
    expect(job).toMatchObject({ status: 'completed' });
    const theirs = pushAsPerson(job.source.ref, 'docs/install.md', '# Install\n\nFixed by a person.\n');

    const followed = await followUp(job, 'Add an upgrade page', [
      { toolCalls: [{ name: 'read_file', input: { path: 'docs/install.md' } }] },
      write('docs/upgrade.md', '# Upgrade\n'),
      { text: 'Added the upgrade page.' },
    ]);

    expect(followed).toMatchObject({ status: 'completed', error: null, source: { ref: job.source.ref } });
    expect(isAncestor(theirs, job.source.ref)).toBe(true);
    expect(git(scripted.repo, 'show', `${job.source.ref}:docs/install.md`)).toContain('Fixed by a person.');
    // The agent read their version: the run started from their commit.
    expect(JSON.stringify(scripted.model.requests.at(-2)?.body)).toContain('Fixed by a person.');
  });

  it('merges commits pushed while it ran under its own, and pushes without force', async () => {
    const job = await create('Add the FAQ', [write('docs/faq.md', '# FAQ\n'), { text: 'FAQ' }]);
    let theirs = '';
    const followed = await followUp(job, 'Add the glossary', [
      write('docs/glossary.md', '# Glossary\n'),
      // While the run works, a person pushes a fix of another file to the branch.
      {
        answer: () => {
          theirs = pushAsPerson(job.source.ref, 'docs/faq.md', '# FAQ\n\nFixed while the job ran.\n');
          return { text: 'Added the glossary.' };
        },
      },
    ]);

    expect(followed).toMatchObject({ status: 'completed', error: null });
    const head = git(scripted.repo, 'rev-parse', job.source.ref);
    expect(isAncestor(theirs, head)).toBe(true);
    expect(git(scripted.repo, 'show', `${head}:docs/faq.md`)).toContain('Fixed while the job ran.');
    expect(git(scripted.repo, 'show', `${head}:docs/glossary.md`)).toBe('# Glossary');
    expect(git(scripted.repo, 'log', '-1', '--format=%s', head)).toContain('pushed to');
    const pull = await store().pullRequests.getByBranch(projectId(), job.source.ref);
    expect(pull?.headSha).toBe(head);
  });

  it('fails clearly, pushing nothing over them, when their commits conflict with the run', async () => {
    const job = await create('Add the news page', [write('docs/news.md', '# News\n'), { text: 'News' }]);
    let theirs = '';
    const followed = await followUp(job, 'Add version 2 to the news', [
      write('docs/news.md', '# News\n\nVersion 2.\n'),
      {
        answer: () => {
          theirs = pushAsPerson(job.source.ref, 'docs/news.md', '# News\n\nVersion 3.\n');
          return { text: 'Added version 2.' };
        },
      },
    ]);

    expect(followed).toMatchObject({ status: 'failed', error: { code: 'repository_error' } });
    expect(followed.error?.message).toContain('docs/news.md');
    expect(followed.error?.message).toContain('Nothing was pushed over them');
    expect(git(scripted.repo, 'rev-parse', job.source.ref)).toBe(theirs);
  });
});
