import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Job } from '../../src/domain/job.js';
import { createGitlabHost } from '../../src/hosts/gitlab.js';
import { startGitlabDouble } from '../support/gitlab-double.js';
import { codeHostContract } from '../support/host-contract.js';
import { hostProject } from '../support/host-projects.js';
import { tempDir } from '../support/worker.js';

const TOKEN = `glpat-${randomBytes(12).toString('hex')}`;

codeHostContract('gitlab against its double', async () => {
  const double = await startGitlabDouble({ token: TOKEN });
  const project = double.project('org/docs/site');
  const dir = tempDir('gitlab-contract');
  return {
    host: createGitlabHost({
      secret: async () => TOKEN,
      askpassDir: path.join(dir, 'askpass'),
      retry: { baseMs: 5 },
    }),
    project: hostProject('gitlab', 'https://gitlab.example.com/org/docs/site.git', { apiUrl: double.url }),
    job: async (title) => ({ id: `job-${title}` }) as Job,
    expectedUrl: (number) => `https://gitlab.example.com/org/docs/site/-/merge_requests/${number}`,
    titleOf: async (number) => project.mergeRequests.find((mr) => mr.iid === number)?.title,
    isOpen: async (number) => project.mergeRequests.find((mr) => mr.iid === number)?.state === 'opened',
    labelsOf: async (number) => project.mergeRequests.find((mr) => mr.iid === number)?.labels ?? [],
    refuseLabels: (refuse) => {
      project.ignoreLabels = refuse;
    },
    close: async () => {
      await double.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
