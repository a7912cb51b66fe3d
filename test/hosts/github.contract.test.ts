import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { createGithubHost } from '../../src/hosts/github.js';
import { startGithubDouble } from '../support/github-double.js';
import { codeHostContract } from '../support/host-contract.js';
import { hostProject } from '../support/host-projects.js';
import { tempDir } from '../support/worker.js';

const TOKEN = `ghp_${randomBytes(12).toString('hex')}`;

codeHostContract('github against its double', async () => {
  const double = await startGithubDouble({ token: TOKEN });
  const repository = double.repository('org', 'repo');
  const dir = tempDir('github-contract');
  const project: Project = {
    ...hostProject('github', 'https://github.com/org/repo.git', { apiUrl: double.url }),
    id: 'p_contract',
  };
  return {
    host: createGithubHost({
      secret: async () => TOKEN,
      askpassDir: path.join(dir, 'askpass'),
      retry: { baseMs: 5, pacing: false },
    }),
    project,
    job: async (title) => ({ id: `job-${title}` }) as Job,
    expectedUrl: (number) => `https://github.com/org/repo/pull/${number}`,
    titleOf: async (number) => repository.pulls.find((pull) => pull.number === number)?.title,
    isOpen: async (number) => repository.pulls.find((pull) => pull.number === number)?.state === 'open',
    labelsOf: async (number) => repository.pulls.find((pull) => pull.number === number)?.labels ?? [],
    refuseLabels: (refuse) => {
      repository.refuseLabels = refuse;
    },
    close: async () => {
      await double.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
