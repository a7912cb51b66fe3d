/**
 * The rules of a project's settings that every place a project is made or changed applies alike:
 * the CLI (`cli/commands/project.ts`) and the dashboard's form (`web/project-form.ts`). Each says
 * what is wrong in a sentence both show as it is, the CLI after its flag, the form next to its
 * field. What needs the disk or the network (the repository, the code host) is `hosts/` and
 * `git/`'s; the check command's rules are `checks/settings.ts`'.
 */
import { modelIdProblem } from './model-id.js';
import type { CodeHostKind } from './project.js';

/** The settings these rules are about, by the name the form and the project record give them. */
export type ProjectField = 'defaultModel' | 'allowedModels' | 'apiUrl' | 'appId' | 'installationId';

/** One setting that is wrong, and why. */
export interface SettingProblem {
  field: ProjectField;
  message: string;
}

/** The most models a project may list. */
export const MAX_ALLOWED_MODELS = 50;

/** The models a project offers, as they are typed: ids split on commas or spaces, repeats dropped. */
export const splitModelList = (text: string): string[] => [
  ...new Set(
    text
      .split(/[\s,]+/)
      .map((id) => id.trim())
      .filter(Boolean),
  ),
];

/**
 * A project's default model and allowed models, checked: each a model id the agent can run
 * (`domain/model-id.ts`), and the default one of the allowed when both are given.
 */
export function checkModelSettings(
  defaultModel: string | null,
  allowedModels: readonly string[] | null,
): SettingProblem[] {
  const problems: SettingProblem[] = [];
  const wrongDefault = defaultModel === null ? null : modelIdProblem(defaultModel);
  if (wrongDefault) problems.push({ field: 'defaultModel', message: wrongDefault });
  const wrongAllowed = (allowedModels ?? []).map(modelIdProblem).find((problem) => problem !== null);
  if (wrongAllowed) problems.push({ field: 'allowedModels', message: wrongAllowed });
  else if (allowedModels && allowedModels.length > MAX_ALLOWED_MODELS)
    problems.push({ field: 'allowedModels', message: `List at most ${MAX_ALLOWED_MODELS} models.` });
  if (
    !wrongDefault &&
    defaultModel !== null &&
    allowedModels?.length &&
    !allowedModels.includes(defaultModel)
  )
    problems.push({ field: 'defaultModel', message: `The default model must be one of the allowed models.` });
  return problems;
}

/** What a person gives of a remote host's settings; empty or absent: not set. */
export interface HostSettingsInput {
  apiUrl?: string | undefined;
  appId?: string | undefined;
  installationId?: string | undefined;
}

/**
 * The non-secret host settings of a project on `host`, and what is wrong with them: a GitHub App
 * only on github, an API URL only on a remote host, App ids as numbers.
 */
export function hostSettingsFor(
  host: CodeHostKind,
  input: HostSettingsInput,
): { settings: Record<string, unknown>; problems: SettingProblem[] } {
  const settings: Record<string, unknown> = {};
  const problems: SettingProblem[] = [];
  const { apiUrl, appId, installationId } = input;
  if (apiUrl) {
    if (host === 'local')
      problems.push({
        field: 'apiUrl',
        message: 'An API URL is for the github, gitlab or gitea host; a local project has none.',
      });
    settings.apiUrl = apiUrl.replace(/\/+$/, '');
  }
  if ((appId || installationId) && host !== 'github')
    problems.push({
      field: 'appId',
      message: 'A GitHub App (app id and installation id) is for the github host only.',
    });
  if (appId) {
    if (!/^\d{1,12}$/.test(appId)) problems.push({ field: 'appId', message: 'The app id must be a number.' });
    settings.appId = appId;
  }
  if (installationId) {
    if (!/^\d{1,15}$/.test(installationId))
      problems.push({ field: 'installationId', message: 'The installation id must be a number.' });
    settings.installationId = installationId;
  }
  return { settings, problems };
}

/**
 * A daily budget as typed: an amount in US dollars such as 20 or 2.50, or `none` (or nothing) for
 * no budget. Zero is refused rather than read as "no budget", which is the opposite of what it says.
 */
export function readDailyBudget(text: string): { value: number | null } | { problem: string } {
  const typed = text.trim();
  if (typed === '' || /^none$/i.test(typed)) return { value: null };
  const amount = Number(typed);
  if (/^\d{1,9}(\.\d{1,4})?$/.test(typed) && amount > 0) return { value: amount };
  return { problem: 'expected an amount in US dollars such as 20 or 2.50, or none for no budget' };
}
