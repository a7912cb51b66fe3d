/**
 * Making and changing projects, the same for every entry point (the dashboard's project form,
 * `agentjobs project create|update|token`, `agentjobs quickstart`). Every rule lives here, once:
 * a name of 1 to 100 characters; a known host and publish mode; a local repository that is an
 * absolute path (the dashboard's user sees no server directory; the CLI makes its user's relative
 * path absolute before it asks) and a git repository with a first commit and the base branch; a
 * remote one an https:// URL without credentials that the host can read owner and name from; a
 * base branch git accepts; model ids the agent can run; host settings that fit the host; a daily
 * budget above zero; check commands the sandbox can run; a mention; and a token for a remote host,
 * asked for again when the host, repository or API URL it was given for changes. Every broken rule
 * is an `InputError` naming its field as the project record does (`repository`, `baseBranch`, …).
 */
import { isAbsolute } from 'node:path';
import type { SandboxSettings } from '../checks/sandbox.js';
import { CheckSettingsError, MAX_CHECK_COMMAND_CHARS, parseCheckSettings } from '../checks/settings.js';
import { AppError } from '../domain/errors.js';
import {
  CODE_HOSTS,
  type CodeHostKind,
  DEFAULT_PROJECT_MENTION,
  mentionProblem,
  type NewProject,
  type Project,
  PUBLISH_MODES,
  type PublishMode,
} from '../domain/project.js';
import { checkModelSettings, hostSettingsFor } from '../domain/project-settings.js';
import { checkLocalRepository, RepositoryCheckError } from '../git/repository-check.js';
import { checkHostSettings, ProjectSettingsError, resolveRepository } from '../hosts/project-settings.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import { branchNameProblem, type FieldProblem, InputError, type InputProblem } from './input.js';

/** What the project operations need. */
export interface ProjectOperationDeps {
  store: Pick<Store, 'projects'>;
  /** Seals a host token; called only when one is stored. */
  secrets: () => SecretBox;
  /** Whether the deployment lets a command run where a limit of the sandbox cannot be enforced. */
  sandbox: Pick<SandboxSettings, 'unlimited'>;
}

/**
 * A project's settings as a person gives them. On update, an absent field is left as it is; null
 * (or an empty text) means "not set" where a setting may be unset.
 */
export interface ProjectInput {
  name?: string | undefined;
  repository?: string | undefined;
  host?: string | undefined;
  /** Empty or null: the repository's current branch, else main. */
  baseBranch?: string | null | undefined;
  publish?: string | undefined;
  defaultModel?: string | null | undefined;
  allowedModels?: readonly string[] | null | undefined;
  dailyBudgetUsd?: number | null | undefined;
  apiUrl?: string | null | undefined;
  appId?: string | null | undefined;
  installationId?: string | null | undefined;
  builtInChecks?: boolean | undefined;
  closePrOnArchive?: boolean | undefined;
  quoteContext?: boolean | undefined;
  /** Empty or null: the default mention. */
  mention?: string | null | undefined;
  checkCommand?: string | null | undefined;
  checkTimeoutSeconds?: number | null | undefined;
  onCheckFailure?: string | undefined;
  setupCommand?: string | null | undefined;
  agentCommands?: boolean | undefined;
  /** The code host's token (or GitHub App key): write-only. Absent or empty on update: keep it. */
  token?: string | null | undefined;
}

/** The settings the form and the CLI give of a remote host; the others (a GitLab path) are kept. */
const LISTED_HOST_SETTINGS = ['apiUrl', 'appId', 'installationId'] as const;

/** What a checked input becomes: the project's fields, and what to do with its token. */
interface Checked {
  project: Partial<NewProject>;
  /** Undefined: leave the stored token; `token: null`: remove it. */
  hostToken: { token: string | null } | undefined;
}

/** The problems found so far, each field named once (the first problem of a field wins). */
class Problems {
  readonly list: FieldProblem[] = [];
  add(field: string, problem: InputProblem, message: string): void {
    if (!this.has(field)) this.list.push({ field, problem, message });
  }
  has(field: string): boolean {
    return this.list.some((problem) => problem.field === field);
  }
  throwAny(): void {
    const [first, ...rest] = this.list;
    if (first) throw new InputError([first, ...rest]);
  }
}

const given = <T>(value: T | undefined): value is T => value !== undefined;
const textOrNull = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);

function checkName(input: ProjectInput, problems: Problems, out: Partial<NewProject>): void {
  if (!given(input.name)) return;
  const name = input.name.trim();
  if (!name) problems.add('name', 'empty', 'is required');
  else if (name.length > 100) problems.add('name', 'too_long', 'must be at most 100 characters');
  else out.name = name;
}

function checkChoices(input: ProjectInput, problems: Problems, out: Partial<NewProject>): void {
  if (given(input.host)) {
    if ((CODE_HOSTS as readonly string[]).includes(input.host)) out.host = input.host as CodeHostKind;
    else problems.add('host', 'invalid', `must be one of ${CODE_HOSTS.join(', ')}`);
  }
  if (given(input.publish)) {
    if ((PUBLISH_MODES as readonly string[]).includes(input.publish))
      out.publish = input.publish as PublishMode;
    else problems.add('publish', 'invalid', `must be one of ${PUBLISH_MODES.join(', ')}`);
  }
  for (const flag of ['builtInChecks', 'closePrOnArchive', 'quoteContext'] as const)
    if (given(input[flag])) out[flag] = input[flag];
  if (given(input.mention)) {
    const mention = textOrNull(input.mention) ?? DEFAULT_PROJECT_MENTION;
    const problem = mentionProblem(mention);
    if (problem) problems.add('mention', 'invalid', problem);
    else out.mention = mention;
  }
  if (given(input.dailyBudgetUsd)) {
    const amount = input.dailyBudgetUsd;
    if (amount !== null && !(Number.isFinite(amount) && amount > 0))
      problems.add(
        'dailyBudgetUsd',
        'invalid',
        'expected an amount in US dollars such as 20 or 2.50, or none for no budget',
      );
    else out.dailyBudgetUsd = amount;
  }
}

function checkModels(
  input: ProjectInput,
  current: Project | undefined,
  problems: Problems,
  out: Partial<NewProject>,
) {
  if (!given(input.defaultModel) && !given(input.allowedModels)) return;
  const defaultModel = given(input.defaultModel)
    ? textOrNull(input.defaultModel)
    : (current?.defaultModel ?? null);
  const listed = given(input.allowedModels)
    ? [...new Set((input.allowedModels ?? []).map((id) => id.trim()).filter(Boolean))]
    : (current?.allowedModels ?? []);
  const allowedModels = listed.length ? listed : null;
  for (const { field, message } of checkModelSettings(defaultModel, allowedModels))
    problems.add(field, 'invalid', message);
  out.defaultModel = defaultModel;
  out.allowedModels = allowedModels;
}

/** The host settings after the change: the listed ones as given (or kept), the unlisted kept on the same host. */
function checkHostSettingsInput(
  input: ProjectInput,
  host: CodeHostKind,
  current: Project | undefined,
  problems: Problems,
): Record<string, unknown> {
  const kept = current && current.host === host ? current.hostSettings : {};
  const value = (key: (typeof LISTED_HOST_SETTINGS)[number]) => {
    const typed = input[key];
    return given(typed) ? (textOrNull(typed) ?? undefined) : (kept[key] as string | undefined);
  };
  const apiUrl = value('apiUrl');
  if (
    apiUrl !== undefined &&
    (!/^https?:\/\/[^\s]+$/i.test(apiUrl) || apiUrl.length > 2000 || !URL.canParse(apiUrl))
  )
    problems.add('apiUrl', 'invalid', 'must be an http(s) URL');
  const { settings, problems: found } = hostSettingsFor(host, {
    apiUrl,
    appId: value('appId'),
    installationId: value('installationId'),
  });
  for (const { field, message } of found) problems.add(field, 'invalid', message);
  const unlisted = Object.entries(kept).filter(
    ([key]) => !(LISTED_HOST_SETTINGS as readonly string[]).includes(key),
  );
  return { ...Object.fromEntries(unlisted), ...settings };
}

/** The repository and base branch, resolved and checked on disk for a local project. */
async function checkRepository(
  input: ProjectInput,
  target: { host: CodeHostKind; hostSettings: Record<string, unknown> },
  current: Project | undefined,
  problems: Problems,
  out: Partial<NewProject>,
): Promise<void> {
  const { host } = target;
  let repository = current?.repository ?? '';
  let detectedBase: string | null = null;
  if (given(input.repository) || given(input.host)) {
    repository = (input.repository ?? repository).trim();
    const path = repository.startsWith('file://')
      ? URL.canParse(repository) && new URL(repository).pathname
      : repository;
    if (!repository) problems.add('repository', 'empty', 'is required');
    else if (repository.length > 2000)
      problems.add('repository', 'too_long', 'must be at most 2000 characters');
    else if (host === 'local' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(repository) && !(path && isAbsolute(path)))
      problems.add('repository', 'not_absolute', 'must be an absolute path on the server');
    else {
      try {
        ({ repository, detectedBase } = await resolveRepository(repository, host));
        checkHostSettings(host, { repository, hostSettings: target.hostSettings });
        out.repository = repository;
      } catch (error) {
        if (!(error instanceof ProjectSettingsError)) throw error;
        problems.add('repository', 'invalid', error.message);
      }
    }
  }
  let baseBranch = current?.baseBranch ?? 'main';
  if (given(input.baseBranch) || !current) {
    baseBranch = textOrNull(input.baseBranch) ?? detectedBase ?? 'main';
    const problem =
      baseBranch.length > 200 ? 'must be at most 200 characters' : branchNameProblem(baseBranch);
    if (problem) problems.add('baseBranch', 'invalid_branch', `is not a valid branch name: ${problem}`);
    else out.baseBranch = baseBranch;
  }
  const touched = given(input.repository) || given(input.host) || given(input.baseBranch) || !current;
  if (host !== 'local' || !touched || problems.has('repository') || problems.has('baseBranch')) return;
  try {
    await checkLocalRepository(repository, baseBranch);
  } catch (error) {
    if (!(error instanceof RepositoryCheckError)) throw error;
    problems.add(error.field, 'invalid', error.message);
  }
}

async function checkCommands(
  input: ProjectInput,
  sandbox: ProjectOperationDeps['sandbox'],
  problems: Problems,
  out: Partial<NewProject>,
): Promise<void> {
  const fields = [
    'checkCommand',
    'checkTimeoutSeconds',
    'onCheckFailure',
    'setupCommand',
    'agentCommands',
  ] as const;
  const settings = Object.fromEntries(
    fields.filter((field) => given(input[field])).map((field) => [field, input[field]]),
  );
  for (const field of ['checkCommand', 'setupCommand'] as const)
    if (typeof settings[field] === 'string' && (settings[field] as string).length > MAX_CHECK_COMMAND_CHARS)
      problems.add(field, 'too_long', `must be at most ${MAX_CHECK_COMMAND_CHARS} characters`);
  try {
    Object.assign(out, await parseCheckSettings(settings, sandbox));
  } catch (error) {
    if (!(error instanceof CheckSettingsError)) throw error;
    problems.add(error.field, 'invalid', error.message);
  }
}

/** Whether new settings would send the project's token somewhere else than the old ones. */
function movesToken(current: Project, next: Pick<Project, 'host' | 'repository' | 'hostSettings'>): boolean {
  const target = (project: Pick<Project, 'host' | 'repository' | 'hostSettings'>) =>
    JSON.stringify([project.host, project.repository, project.hostSettings.apiUrl ?? null]);
  return target(current) !== target(next);
}

/**
 * What to do with the token: a remote host needs one; a stored one only ever goes where it was
 * given for, so changing where that is asks for it again (a session alone cannot send it to a
 * server of its choosing).
 */
function checkToken(
  input: ProjectInput,
  next: Pick<Project, 'host' | 'repository' | 'hostSettings'>,
  current: Project | undefined,
  problems: Problems,
): Checked['hostToken'] {
  const token = textOrNull(input.token);
  if (next.host === 'local') return current?.hasHostToken ? { token: null } : undefined;
  if (token) return { token };
  const keeps = current?.hasHostToken === true && !movesToken(current, next);
  if (keeps) return undefined;
  problems.add(
    'token',
    'missing',
    current?.hasHostToken
      ? 'Enter the token again: the host, the repository or the API URL changed.'
      : `A ${next.host} project needs a token.`,
  );
  return undefined;
}

/** Every rule, on `input` over `current` (none when the project is new); throws every broken rule at once. */
async function check(
  deps: ProjectOperationDeps,
  input: ProjectInput,
  current: Project | undefined,
): Promise<Checked> {
  const problems = new Problems();
  const project: Partial<NewProject> = {};
  checkName(input, problems, project);
  checkChoices(input, problems, project);
  checkModels(input, current, problems, project);
  const host = project.host ?? current?.host ?? 'local';
  const hostSettings = checkHostSettingsInput(input, host, current, problems);
  if (!problems.has('host')) await checkRepository(input, { host, hostSettings }, current, problems, project);
  project.hostSettings = hostSettings;
  await checkCommands(input, deps.sandbox, problems, project);
  const repository = project.repository ?? current?.repository ?? '';
  const hostToken = checkToken(input, { host, repository, hostSettings }, current, problems);
  problems.throwAny();
  return { project, hostToken };
}

/** Makes a project. @throws InputError */
export async function createProject(
  deps: ProjectOperationDeps,
  input: ProjectInput & { name: string; repository: string },
): Promise<Project> {
  const { project, hostToken } = await check(deps, { host: 'local', ...input }, undefined);
  const token = hostToken?.token;
  return deps.store.projects.create(
    project as NewProject,
    token ? { token, secrets: deps.secrets() } : undefined,
  );
}

/** The project, or `project_not_found`. */
export async function requireProject(
  deps: Pick<ProjectOperationDeps, 'store'>,
  projectId: string,
): Promise<Project> {
  const project = await deps.store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  return project;
}

/** Changes the settings `input` gives; the others stay. @throws InputError, AppError `project_not_found` */
export async function updateProject(
  deps: ProjectOperationDeps,
  projectId: string,
  input: ProjectInput,
): Promise<Project> {
  const current = await requireProject(deps, projectId);
  const { project, hostToken } = await check(deps, input, current);
  const updated = await deps.store.projects.update(
    current.id,
    project,
    hostToken && { ...hostToken, secrets: deps.secrets() },
  );
  if (!updated) throw new AppError('project_not_found', `No project ${projectId}.`);
  return updated;
}

/** Stores a new token for a remote project. @throws InputError (`token`), AppError `project_not_found` */
export async function setProjectToken(
  deps: Pick<ProjectOperationDeps, 'store' | 'secrets'>,
  projectId: string,
  token: string,
): Promise<Project> {
  const project = await requireProject(deps, projectId);
  if (project.host === 'local')
    throw new InputError([
      { field: 'token', problem: 'invalid', message: 'A local project needs no token.' },
    ]);
  if (!token.trim())
    throw new InputError([{ field: 'token', problem: 'empty', message: 'The token is empty.' }]);
  await deps.store.projects.setHostToken(project.id, token.trim(), deps.secrets());
  return requireProject(deps, projectId);
}
