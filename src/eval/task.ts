/**
 * Eval task files (docs/evaluation.md): YAML, one task each, so users write their own. A task names a
 * fixture site (a folder of files, relative to the task file), a prompt, optional follow-ups, and
 * what the result must look like. Parsed with the `yaml` package and checked with zod, so a typo in
 * a task file is reported with its path rather than passing silently.
 *
 * A task may also name context repositories (docs/architecture.md#the-runs-phases): folders of the suite, each made a git
 * repository that the agent reads by name and never changes, for tasks that need the code the docs
 * describe.
 *
 * A task may run the project's own tools as a job would (docs/architecture.md#the-runs-phases): a `setup` command, a
 * check `command` that must pass on the result, and `agentCommands` for the agent's `run_command`,
 * all in the real sandbox.
 *
 * A task reaches no file outside its suite: the folder named on the command line (a task file's
 * own folder when the file is named), or the folder above it when that folder is `tasks/`, as in
 * the shipped `eval/`. The site and every context folder must be inside the suite once symlinks
 * are resolved, and the paths
 * its expectations read must stay inside the result.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { isInside } from './site.js';

/** A path inside the result: relative, never climbing out of it. */
const insidePath = z
  .string()
  .min(1)
  .refine(
    (path) => !isAbsolute(path) && !path.split(/[\\/]/).includes('..'),
    'must be a relative path that stays inside the site (no leading "/", no "..")',
  );

const paths = z.array(insidePath).min(1);

/** One expectation of a task; each is a small object with one kind of check. */
const expectation = z.union([
  z.strictObject({
    path: insidePath,
    exists: z.boolean().optional(),
    contains: z.array(z.string()).optional(),
    notContains: z.array(z.string()).optional(),
    frontmatter: z.record(z.string(), z.unknown()).optional(),
  }),
  z.strictObject({ navigation: z.string().min(1) }),
  z.strictObject({
    replaced: z.strictObject({
      from: z.string().min(1),
      to: z.string().min(1),
      except: z.array(insidePath).optional(),
    }),
  }),
  z.strictObject({ changedOnly: z.array(insidePath) }),
  z.strictObject({ unchanged: z.literal(true) }),
  z.strictObject({ checks: z.literal('passed') }),
  z.strictObject({ links: z.literal('resolve'), paths: paths.optional() }),
]);

export type Expectation = z.infer<typeof expectation>;

const lowerWords = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case words joined by "-"');

/** As many as a project may have (docs/architecture.md#the-runs-phases). */
const MAX_CONTEXT_REPOSITORIES = 10;

const taskSchema = z.strictObject({
  name: lowerWords,
  site: z.string().min(1),
  /** Context repositories: `name` as the agent's tools take it, `site` the folder of its files. */
  context: z
    .array(z.strictObject({ name: lowerWords, site: z.string().min(1) }))
    .max(MAX_CONTEXT_REPOSITORIES)
    .refine((list) => new Set(list.map((each) => each.name)).size === list.length, 'names must be unique')
    .default([]),
  prompt: z.string().min(1),
  followUps: z.array(z.string().min(1)).default([]),
  /** The project's setup command: the environment every command of the task runs with. */
  setup: z.string().min(1).max(2000).optional(),
  /** The project's check command: it must pass on the result, as a job's would before publishing. */
  command: z.string().min(1).max(2000).optional(),
  /** Whether the agent has `run_command`, as a project with `agentCommands` gives it. */
  agentCommands: z.boolean().default(false),
  expect: z.array(expectation).min(1),
});

/** A context repository of a task. */
export interface EvalContext {
  name: string;
  /** The folder of its files, absolute, symlinks resolved; inside the suite. */
  siteDir: string;
}

/** A task, ready to run. */
export interface EvalTask {
  name: string;
  /** The task file. */
  file: string;
  /** The fixture site's folder, absolute, symlinks resolved; inside the suite. */
  siteDir: string;
  /** Read-only repositories the agent may read, each made from a folder of the suite. */
  context: EvalContext[];
  prompt: string;
  followUps: string[];
  /** The setup command (docs/architecture.md#the-runs-phases), run in the sandbox with network before the agent. */
  setup?: string | undefined;
  /** The check command, run offline in the sandbox on the result; the task fails when it does. */
  command?: string | undefined;
  /** The agent may run commands offline in the sandbox (`run_command`). */
  agentCommands: boolean;
  expect: Expectation[];
}

/** Whether a task runs anything in the sandbox, so cannot pass where there is none. */
export const needsSandbox = (task: EvalTask) =>
  task.setup !== undefined || task.command !== undefined || task.agentCommands;

/** A task file that cannot be used; the message names the file and the field. */
export class TaskFileError extends Error {
  override name = 'TaskFileError';
}

/** Reads one task file of the suite in `suiteDir` (a real path: symlinks resolved). */
export async function loadTask(file: string, suiteDir: string): Promise<EvalTask> {
  let value: unknown;
  try {
    value = parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new TaskFileError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = taskSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TaskFileError(`${file}: ${issue?.path.join('.') || 'task'}: ${issue?.message}`);
  }
  const { data } = parsed;
  const siteDir = await suiteFolder(file, suiteDir, data.name, 'site', data.site);
  const context: EvalContext[] = [];
  for (const [index, each] of data.context.entries())
    context.push({
      name: each.name,
      siteDir: await suiteFolder(file, suiteDir, data.name, `context.${index}.site`, each.site),
    });
  return { ...data, file, siteDir, context };
}

/** The real path of the folder `named` (relative to the task file), which must be in the suite. */
async function suiteFolder(
  file: string,
  suiteDir: string,
  task: string,
  field: string,
  named: string,
): Promise<string> {
  const path = resolve(dirname(file), named);
  const real = await realpath(path).catch(() => null);
  const isFolder =
    real !== null &&
    (await stat(real).then(
      (info) => info.isDirectory(),
      () => false,
    ));
  if (real === null || !isFolder)
    throw new TaskFileError(`${file}: ${field}: no folder ${relative(process.cwd(), path) || path}`);
  if (!isInside(real, suiteDir))
    throw new TaskFileError(
      `${file}: task ${task}: ${field}: ${named} is ${real}, outside the suite's folder ${suiteDir}; a task may only use folders inside its suite`,
    );
  return real;
}

/**
 * The task files under `paths` (files, or folders searched for `*.yaml`/`*.yml`, leaving out the
 * fixture sites' own files under `sites/`), in path order; names must be unique.
 */
export async function findTasks(paths: string[]): Promise<EvalTask[]> {
  const files = new Map<string, string>();
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (!info) throw new TaskFileError(`${path}: no such file or folder`);
    const folder = await realpath(info.isDirectory() ? path : dirname(path));
    const suiteDir = basename(folder) === 'tasks' ? dirname(folder) : folder;
    const found = info.isDirectory() ? await yamlFiles(resolve(path)) : [resolve(path)];
    for (const file of found) if (!files.has(file)) files.set(file, suiteDir);
  }
  const tasks = await Promise.all(
    [...files.keys()].sort().map((file) => loadTask(file, files.get(file) as string)),
  );
  const seen = new Map<string, string>();
  for (const task of tasks) {
    const other = seen.get(task.name);
    if (other) throw new TaskFileError(`${task.file}: the name ${task.name} is also the name of ${other}`);
    seen.set(task.name, task.file);
  }
  return tasks;
}

async function yamlFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'sites' && !entry.name.startsWith('.')) found.push(...(await yamlFiles(path)));
    } else if (/\.ya?ml$/.test(entry.name)) found.push(path);
  }
  return found;
}
