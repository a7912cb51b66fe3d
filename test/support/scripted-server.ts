/**
 * The whole product on one machine for end-to-end tests: a local git repository, a scripted
 * OpenAI-compatible model, a fresh database, the built `agentjobs serve` over real HTTP, and a
 * project with a read+write key made through the built CLI, as a user would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase, type TestDialect } from './db.js';
import { createProjectAndKey, git, type JobTarget, jobApi } from './e2e.js';
import { type ServerProcess, startServerProcess } from './processes.js';
import { type ScriptedModelOptions, type ScriptedModelServer, startScriptedModel } from './scripted-model.js';
import { type FixtureClose, useFixture } from './use-fixture.js';

export interface ScriptedServerOptions {
  /** Names the temporary folder (`agentjobs-<name>-…`). */
  name: string;
  /** A fresh database of this dialect; without one, the server's own SQLite file in its data folder. */
  dialect?: TestDialect;
  /** The repository's first commit (path → content); default a README. Empty: an empty commit. */
  files?: Record<string, string>;
  /** The repository's branch; default `main`. */
  branch?: string;
  /** The scripted model's options (its script, its usage per answer). */
  model?: ScriptedModelOptions;
  /** false: no model provider in the environment at all (the model still runs, unused). */
  provider?: boolean;
  /** More environment for the server and the CLI, over the defaults. */
  env?: Record<string, string>;
  /** More arguments of `project create`; false: make no project (the test makes its own). */
  project?: string[] | false;
}

export interface ScriptedServer {
  /** The temporary folder everything lives in; removed by `close`. */
  dir: string;
  /** The local repository of the project. */
  repo: string;
  model: ScriptedModelServer;
  server: ServerProcess;
  /** The environment the server runs with; pass it to `runCli` to reach the same data. */
  env: Record<string, string>;
  /** '' when `project` was false. */
  projectId: string;
  key: string;
  /** The project's jobs over the API, for `jobApi`. */
  target(): JobTarget;
  /** `jobApi` on the project. */
  api: ReturnType<typeof jobApi>;
  /**
   * Stops the server with `signal` (default SIGTERM), resolving with its exit code, and the model;
   * drops the database; removes the folder.
   */
  close(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts everything (see the file's comment); `close` it in `afterAll`. */
export async function scriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentjobs-${options.name}-`));
  const repo = path.join(dir, 'docs');
  git(dir, 'init', '-q', '-b', options.branch ?? 'main', repo);
  const files = options.files ?? { 'README.md': '# Docs\n' };
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), content);
  }
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'init');

  let model: ScriptedModelServer | undefined;
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  const close = async (signal?: NodeJS.Signals) => {
    const code = (await server?.stop(signal)) ?? null;
    await model?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
    return code;
  };
  try {
    model = await startScriptedModel(options.model);
    database = options.dialect ? await createTestDatabase(options.dialect) : undefined;
    const provider: Record<string, string> =
      options.provider === false
        ? { AGENTJOBS_MODEL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_COMPATIBLE_BASE_URL: '' }
        : { AGENTJOBS_MODEL: 'openai-compatible:scripted', OPENAI_COMPATIBLE_BASE_URL: model.url };
    const env: Record<string, string> = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      ...provider,
      ...options.env,
    };
    if (database) env.DATABASE_URL = database.url;
    server = await startServerProcess(env);
    const { projectId, key } =
      options.project === false
        ? { projectId: '', key: '' }
        : await createProjectAndKey(env, repo, options.project ?? []);
    const started = server;
    const target = () => ({ url: started.url, projectId, key });
    return { dir, repo, model, server, env, projectId, key, target, api: jobApi(target), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * `scriptedServer` for a whole suite: started in its `beforeAll`, closed in its `afterAll` (by
 * `close`, default `close()`). See `useFixture`.
 */
export function useScriptedServer(
  options: ScriptedServerOptions | (() => ScriptedServerOptions),
  close: FixtureClose<ScriptedServer> = (started) => started.close(),
): ScriptedServer {
  return useFixture(scriptedServer, options, close);
}

/** The docs repository the demo-model suites start from: a README that links an install page. */
const DEMO_FILES = {
  'README.md': '# Acme docs\n\n- [Install the CLI](docs/install.md)\n',
  'docs/install.md': '# Install the CLI\n\nRun `npm install --global acme-cli`.\n',
};

/**
 * `useScriptedServer` on the built-in demo model (AGENTJOBS_MODEL=demo, no provider key at all) with
 * the admin `password`, on the demo docs repository plus `more.files`; `more` adds options.
 */
export function useDemoServer(
  name: string,
  password: string,
  more: Omit<ScriptedServerOptions, 'name'> = {},
): ScriptedServer {
  return useScriptedServer({
    name,
    provider: false,
    ...more,
    files: { ...DEMO_FILES, ...more.files },
    env: {
      AGENTJOBS_MODEL: 'demo',
      OPENAI_COMPATIBLE_API_KEY: '',
      AGENTJOBS_ADMIN_PASSWORD: password,
      ...more.env,
    },
  });
}
