import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Job } from '../../src/domain/job.js';
import { createGiteaHost } from '../../src/hosts/gitea.js';
import { startGiteaDouble } from '../support/gitea-double.js';
import { codeHostContract } from '../support/host-contract.js';
import { hostProject } from '../support/host-projects.js';
import { tempDir } from '../support/worker.js';

const TOKEN = randomBytes(20).toString('hex');

codeHostContract('gitea against its double', async () => {
  const double = await startGiteaDouble({ token: TOKEN });
  const repository = double.repository('org', 'docs');
  const dir = tempDir('gitea-contract');
  return {
    host: createGiteaHost({
      secret: async () => TOKEN,
      askpassDir: path.join(dir, 'askpass'),
      retry: { baseMs: 5 },
    }),
    project: hostProject('gitea', 'https://gitea.example.com/org/docs.git', { apiUrl: double.url }),
    job: async (title) => ({ id: `job-${title}` }) as Job,
    expectedUrl: (number) => `https://gitea.example.com/org/docs/pulls/${number}`,
    titleOf: async (number) => repository.pulls.find((pull) => pull.number === number)?.title,
    isOpen: async (number) => repository.pulls.find((pull) => pull.number === number)?.state === 'open',
    labelsOf: async (number) => {
      const ids = repository.pulls.find((pull) => pull.number === number)?.labels ?? [];
      return repository.labels.filter((label) => ids.includes(label.id)).map((label) => label.name);
    },
    refuseLabels: (refuse) => {
      repository.refuseLabels = refuse;
    },
    close: async () => {
      await double.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
