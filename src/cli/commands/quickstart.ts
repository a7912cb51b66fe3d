/**
 * `agentjobs quickstart`: everything a first job needs on this machine, in one command. A sample
 * documentation repository (a few Markdown pages, one commit on `main`; a working copy, so the
 * pages can be read and the dashboard's merge updates them), a local project on it and a key; then
 * the commands to start a job, watch it and merge its pull request, filled in.
 *
 * Run twice, it reuses the repository and the project and says so; the key is new each time, since
 * a key is shown only once.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { generateKey } from '../../domain/keys.js';
import type { Project } from '../../domain/project.js';
import { runGit } from '../../git/run.js';
import { withStore } from '../local.js';
import { CliError, type OutputOptions, print } from '../output.js';

interface QuickstartOptions extends OutputOptions {
  dir?: string;
  name: string;
}

/** The sample site: a home page and two guides that link each other, so link checks have work. */
const PAGES: Record<string, string> = {
  'README.md': `# Acme docs

Acme is a command-line tool that keeps your notes in sync.

- [Getting started](docs/getting-started.md)
- [Install the CLI](docs/install.md)
`,
  'docs/getting-started.md': `# Getting started

1. [Install the CLI](install.md).
2. Run \`acme init\` in a folder to start a notebook.
3. Run \`acme sync\` to send your notes to every device.
`,
  'docs/install.md': `# Install the CLI

With npm:

\`\`\`sh
npm install --global acme-cli
\`\`\`

Or download a binary from the releases page. Check the install with \`acme --version\`.
`,
};

const FIRST_PROMPT = 'Add a FAQ page that answers how to install the CLI, and link it from the README';

/** Makes the sample repository at `dir`, or finds the one made before. */
async function sampleRepository(dir: string): Promise<'made' | 'exists'> {
  const git = (...args: string[]) => runGit(args, { cwd: dir, timeoutMs: 30_000 });
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    const ready = await git('rev-parse', '--verify', '--quiet', 'refs/heads/main^{commit}').then(
      () => true,
      () => false,
    );
    if (!ready)
      throw new CliError(
        `${dir} exists and is not a git repository with a main branch; give the sample repository another place with --dir PATH.`,
      );
    return 'exists';
  }
  fs.mkdirSync(dir, { recursive: true });
  await git('init', '--quiet', '--initial-branch=main');
  for (const [file, content] of Object.entries(PAGES)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  await git('add', '--all');
  const identity = { name: 'agentjobs quickstart', email: 'quickstart@agentjobs.invalid' };
  await runGit(['commit', '--quiet', '--no-gpg-sign', '-m', 'Sample documentation'], {
    cwd: dir,
    env: {
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_COMMITTER_NAME: identity.name,
      GIT_COMMITTER_EMAIL: identity.email,
    },
  });
  return 'made';
}

/** Whether a server answers at `url`: the commands printed need one. */
async function serverAnswers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1500) })).ok;
  } catch {
    return false;
  }
}

/** The commands a user runs next, with the project, the key and the server filled in. */
function nextSteps(url: string, project: Project, key: string) {
  const jobs = `${url}/v2/agent/${project.id}/job`;
  return {
    createJob: [
      `curl -s ${jobs} \\`,
      `  -H "Authorization: Bearer ${key}" -H 'Content-Type: application/json' \\`,
      `  -d '${JSON.stringify({ prompt: FIRST_PROMPT })}'`,
    ].join('\n'),
    watchJob: `curl -N ${jobs}/<JOB_ID>/events -H 'Accept: text/event-stream' -H "Authorization: Bearer ${key}"`,
    followJob: `AGENTJOBS_URL=${url} AGENTJOBS_API_KEY=${key} AGENTJOBS_PROJECT=${project.id} npx agentjobs job events <JOB_ID> --follow`,
    mergeJob: `npx agentjobs pr merge --project ${project.id} --job <JOB_ID>`,
    dashboard: `${url}/ui/projects/${project.id}`,
  };
}

export function registerQuickstartCommand(program: Command) {
  program
    .command('quickstart')
    .description('Make a sample docs repository, a project and a key, and print the commands for a first job')
    .option('--dir <path>', 'where the sample repository goes (default: sample-docs in the data directory)')
    .option('--name <name>', 'the project name', 'Sample docs')
    .option('--json', 'machine-readable output')
    .action(async (options: QuickstartOptions) => {
      const config = loadConfig();
      const dir = path.resolve(options.dir ?? path.join(config.dataDir, 'sample-docs'));
      const repositoryState = await sampleRepository(dir);
      const { project, projectState, key } = await withStore(async (store) => {
        const existing = (await store.projects.list()).find(
          (project) => project.host === 'local' && project.repository === dir,
        );
        const project =
          existing ??
          (await store.projects.create({
            name: options.name,
            repository: dir,
            host: 'local',
            baseBranch: 'main',
          }));
        const key = generateKey();
        await store.apiKeys.create({
          projectId: project.id,
          key,
          name: 'quickstart',
          scopes: ['read', 'write'],
          ipAllowlist: null,
          expiresAt: null,
        });
        return { project, projectState: existing ? 'exists' : 'made', key };
      });
      const url = config.publicUrl;
      const running = await serverAnswers(url);
      const steps = nextSteps(url, project, key);
      print(
        options,
        {
          repository: { path: dir, state: repositoryState },
          project: { ...project, state: projectState },
          key,
          serverRunning: running,
          ...steps,
        },
        () =>
          [
            `Repository: ${dir} (${repositoryState === 'made' ? 'made: three pages, one commit on main' : 'exists, left as it was'})`,
            `Project:    ${project.id} (${projectState === 'made' ? `made: ${project.name}` : `exists: ${project.name}`})`,
            `Key:        ${key} (new; shown this once)`,
            '',
            running
              ? `The server at ${url} is up.`
              : `No server answers at ${url} yet: start it with \`npm start\` (same directory, or the same AGENTJOBS_DATA_DIR) first.`,
            '',
            'Start a first job (the answer is the job; its "id" is the JOB_ID below):',
            steps.createJob,
            '',
            'Watch the agent work, live (ends when the job does):',
            steps.watchJob,
            `or: ${steps.followJob}`,
            '',
            'When it completed, merge its pull request into main: the Merge button on the job’s pull request, or',
            steps.mergeJob,
            '',
            `Dashboard: ${steps.dashboard}`,
          ].join('\n'),
      );
    });
}
