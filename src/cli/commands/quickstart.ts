/**
 * `agentjobs quickstart`: everything a first job needs on this machine, in one command. A sample
 * documentation repository (a few Markdown pages, one commit on `main`; a working copy, so the
 * pages can be read and the dashboard's merge updates them), a local project on it and a key; then
 * the commands to start a job, watch it and merge its pull request, filled in.
 *
 * Run twice, it reuses the repository and the project and says so; the key is new each time, since
 * a key is shown only once.
 *
 * `--demo` sets the project's model to the built-in demo model, so a server with no provider
 * configured runs its jobs anyway, without a restart or a variable to set: the project's model is
 * read when a job is created, and only this project is affected. Without `--demo`, a project it
 * set to the demo model goes back to the server's model, and when the server answers that it has
 * no model it can use, it says so with both ways forward.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { ModelStatus } from '../../api/plugins/health.js';
import { type Config, loadConfig } from '../../config/config.js';
import { DEMO_MODEL_ID } from '../../domain/model-id.js';
import type { Project } from '../../domain/project.js';
import { runGit } from '../../git/run.js';
import { createKey } from '../../operations/keys.js';
import { lazySecretBox } from '../../store/secrets.js';
import type { Store } from '../../store/store.js';
import { withStore } from '../local.js';
import { CliError, type OutputOptions, print } from '../output.js';
import { asCommand } from './operation-error.js';

interface QuickstartOptions extends OutputOptions {
  dir?: string;
  name: string;
  demo?: boolean;
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

/**
 * Whether a server answers at `url` (the commands printed need one), and what it says of its
 * default model: the server's environment, not this command's, decides which models it has.
 */
async function serverAnswers(url: string): Promise<{ running: boolean; model: ModelStatus | null }> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1500) });
    if (!response.ok) return { running: false, model: null };
    const body = (await response.json().catch(() => ({}))) as { model?: unknown };
    const model = ['ready', 'demo', 'missing'].includes(String(body.model))
      ? (body.model as ModelStatus)
      : null;
    return { running: true, model };
  } catch {
    return { running: false, model: null };
  }
}

/** A model that makes no key necessary, or one of the providers' variables, in this environment. */
async function modelInThisEnvironment(
  config: Pick<Config, 'defaultModel' | 'providerKeys' | 'providerBaseUrls' | 'openaiCompatibleBaseUrl'>,
): Promise<boolean> {
  const { createLanguageModel } = await import('../../agent/models.js');
  try {
    createLanguageModel(config.defaultModel, config);
    return true;
  } catch {
    return false;
  }
}

const WAYS_FORWARD = [
  '  - set ANTHROPIC_API_KEY (or OPENAI_API_KEY, or OPENAI_COMPATIBLE_BASE_URL with',
  '    AGENTJOBS_MODEL=openai-compatible:<model>) where the server runs, and restart it; or',
  '  - run `npx agentjobs quickstart --demo`: the built-in demo model makes a small, labelled',
  '    change with no account and no AI model, to see the whole flow.',
];

/** What to say of the model jobs of this project will get; null when nothing needs saying. */
function modelNote(
  project: Project,
  server: { running: boolean; model: ModelStatus | null },
  localModel: boolean,
): string | null {
  if (project.defaultModel === DEMO_MODEL_ID)
    return 'Model:      demo, the built-in demo model: jobs make a small labelled change, no AI model is used.\n            For real work, set a model key on the server and run quickstart again without --demo.';
  if (server.running && server.model === 'missing')
    return [
      'Warning: the server has no model it can use, so a job would fail with model_unavailable. Either',
      ...WAYS_FORWARD,
    ].join('\n');
  if (!server.running && !localModel)
    return ['No model key is set in this environment; before `npm start`, either', ...WAYS_FORWARD].join(
      '\n',
    );
  return null;
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

/**
 * The sample's project (made, or found on `dir`, its model set as `--demo` says) and a new key for
 * it, through the operations `project create` and `key create` use.
 */
async function projectAndKey(store: Store, config: Config, dir: string, options: QuickstartOptions) {
  const existing = (await store.projects.list()).find(
    (project) => project.host === 'local' && project.repository === dir,
  );
  // --demo sets the demo model; a run without it undoes that, and leaves any other model be.
  const model = options.demo ? DEMO_MODEL_ID : null;
  // The project operations, as `project create` has them (loaded here: they bring the hosts).
  const { createProject, updateProject } = await import('../../operations/projects.js');
  const deps = { store, secrets: lazySecretBox(config), sandbox: config.checks.sandbox };
  let project = existing;
  if (!project)
    project = await asCommand(
      () =>
        createProject(deps, {
          name: options.name,
          repository: dir,
          host: 'local',
          baseBranch: 'main',
          defaultModel: model,
        }),
      { name: '--name', repository: '--dir' },
    );
  else if (options.demo !== (project.defaultModel === DEMO_MODEL_ID))
    project = await updateProject(deps, project.id, { defaultModel: model });
  // A key like any other (`operations/keys.ts`): it expires after the default 90 days.
  const { key } = await createKey(
    { store },
    { projectId: project.id, name: 'quickstart', scopes: ['read', 'write'] },
  );
  return { project, projectState: existing ? 'exists' : 'made', key };
}

export function registerQuickstartCommand(program: Command) {
  program
    .command('quickstart')
    .description('Make a sample docs repository, a project and a key, and print the commands for a first job')
    .option('--dir <path>', 'where the sample repository goes (default: sample-docs in the data directory)')
    .option('--name <name>', 'the project name', 'Sample docs')
    .option('--demo', 'use the built-in demo model for this project: no model key needed, no AI model used')
    .option('--json', 'machine-readable output')
    .action(async (options: QuickstartOptions) => {
      const config = loadConfig();
      const dir = path.resolve(options.dir ?? path.join(config.dataDir, 'sample-docs'));
      const repositoryState = await sampleRepository(dir);
      const { project, projectState, key } = await withStore(
        (store) => projectAndKey(store, config, dir, options),
        config,
      );
      const url = config.publicUrl;
      const server = await serverAnswers(url);
      const running = server.running;
      const note = modelNote(project, server, server.running || (await modelInThisEnvironment(config)));
      const steps = nextSteps(url, project, key);
      print(
        options,
        {
          repository: { path: dir, state: repositoryState },
          project: { ...project, state: projectState },
          key,
          serverRunning: running,
          serverModel: server.model,
          ...(note ? { modelNote: note } : {}),
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
            ...(note ? ['', note] : []),
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
