import fs from 'node:fs';
import path from 'node:path';
import type { Job } from '../../src/domain/job.js';
import { createLocalHost, localPullRequestUrl } from '../../src/hosts/index.js';
import { openTestStore, testDialects } from '../support/db.js';
import { codeHostContract } from '../support/host-contract.js';
import { git, makeRepo, tempDir } from '../support/worker.js';

for (const dialect of testDialects()) {
  codeHostContract(`local on ${dialect}`, async () => {
    const t = await openTestStore(dialect);
    const dir = tempDir('local-contract');
    const { repo } = makeRepo(dir);
    const bare = path.join(dir, 'docs.git');
    git(dir, 'clone', '-q', '--bare', repo, bare);
    const project = await t.store.projects.create({ name: 'Docs', repository: bare });
    const publicUrl = 'https://jobs.example.com';
    return {
      host: createLocalHost({ pullRequests: t.store.pullRequests, publicUrl }),
      project,
      job: async (title) =>
        (await t.store.jobs.create({
          projectId: project.id,
          prompt: title,
          model: 'anthropic:claude-sonnet-4-5',
          baseRef: 'main',
          repository: project.repository,
          draft: false,
        })) as Job,
      push: (branch) => {
        const commit = git(bare, 'commit-tree', '-p', 'main', '-m', `Change ${branch}`, 'main^{tree}');
        git(bare, 'update-ref', `refs/heads/${branch}`, commit);
      },
      expectedUrl: (number) => localPullRequestUrl(publicUrl, project.id, number),
      titleOf: async (number) => (await t.store.pullRequests.get(project.id, number))?.title,
      isOpen: async (number) => (await t.store.pullRequests.get(project.id, number))?.state === 'open',
      close: async () => {
        await t.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}
