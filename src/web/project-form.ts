import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { SandboxSettings } from '../checks/sandbox.js';
import { CheckSettingsError, MAX_CHECK_COMMAND_CHARS, parseCheckSettings } from '../checks/settings.js';
import { CHECK_FAILURE_POLICIES } from '../domain/checks.js';
import {
  CODE_HOSTS,
  DEFAULT_PROJECT_MENTION,
  MENTION_PATTERN,
  type NewProject,
  PUBLISH_MODES,
} from '../domain/project.js';
import {
  checkModelSettings,
  hostSettingsFor,
  readDailyBudget,
  splitModelList,
} from '../domain/project-settings.js';
import { checkLocalRepository, RepositoryCheckError } from '../git/repository-check.js';
import { checkHostSettings, ProjectSettingsError, resolveRepository } from '../hosts/project-settings.js';

/** A form field and what is wrong with it, shown next to the field. */
export type FieldErrors = Partial<Record<string, string>>;

/** Empty inputs arrive as ''; they mean "not set". */
const optional = (schema: z.ZodType<string, string>) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(schema.optional());

const schema = z.object({
  name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  repository: z.string().trim().min(1, 'is required').max(2000),
  host: z.enum(CODE_HOSTS, { error: `must be one of ${CODE_HOSTS.join(', ')}` }),
  baseBranch: z
    .string()
    .trim()
    .max(200)
    .regex(/^[\w./-]*$/, 'may hold letters, digits, ".", "_", "-" and "/"')
    .default(''),
  publish: z.enum(PUBLISH_MODES).default('pull_request'),
  // The model ids, the host settings and their rules are `domain/project-settings.ts`', as the CLI's.
  defaultModel: optional(z.string().max(200)),
  allowedModels: z.string().max(20_000).default(''),
  dailyBudgetUsd: z.string().max(100).default(''),
  apiUrl: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000)),
  appId: optional(z.string().max(100)),
  installationId: optional(z.string().max(100)),
  builtInChecks: z.enum(['on', 'off']).default('on'),
  closePrOnArchive: z.enum(['on', 'off']).default('on'),
  quoteContext: z.enum(['on', 'off']).default('off'),
  checkCommand: z.string().trim().max(MAX_CHECK_COMMAND_CHARS).default(''),
  checkTimeoutSeconds: optional(z.string().regex(/^\d{1,6}$/, 'must be a number of seconds')),
  onCheckFailure: z.enum(CHECK_FAILURE_POLICIES).default('draft'),
  setupCommand: z.string().trim().max(MAX_CHECK_COMMAND_CHARS).default(''),
  agentCommands: z.enum(['on', 'off']).default('off'),
  // Empty: the default mention.
  mention: z
    .string()
    .trim()
    .max(100)
    .default('')
    .refine((value) => value === '' || MENTION_PATTERN.test(value), {
      error: 'must be @ followed by 1 to 39 letters, digits, _ or -',
    }),
  // Write-only: never rendered back into the form. Empty means "keep the stored one".
  token: z.string().trim().max(20_000).default(''),
});

export type ProjectFormValues = Partial<Record<keyof z.infer<typeof schema>, string>>;

export interface ParsedProjectForm {
  project: NewProject & { baseBranch: string };
  token: string | null;
}

/**
 * Reads the project form: every field checked, each problem named next to its field. A local
 * project's repository must be a git repository on this machine; a remote one an https:// URL
 * without credentials (the token is stored apart, encrypted).
 */
export async function parseProjectForm(
  body: unknown,
  sandbox: Pick<SandboxSettings, 'unlimited'>,
): Promise<{ ok: true; value: ParsedProjectForm } | { ok: false; errors: FieldErrors }> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const errors: FieldErrors = {};
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'form');
      errors[field] ??= issue.message;
    }
    return { ok: false, errors };
  }
  const form = parsed.data;
  const errors: FieldErrors = {};
  const { settings: hostSettings, problems: hostProblems } = hostSettingsFor(form.host, form);
  const allowedModels = splitModelList(form.allowedModels);
  for (const { field, message } of [
    ...hostProblems,
    ...checkModelSettings(form.defaultModel ?? null, allowedModels.length ? allowedModels : null),
  ])
    errors[field] ??= message;
  const dailyBudget = readDailyBudget(form.dailyBudgetUsd);
  if ('problem' in dailyBudget) errors.dailyBudgetUsd = dailyBudget.problem;
  let repository = form.repository;
  let detectedBase: string | null = null;
  // A relative path would be taken from the server's working directory, which nobody here sees.
  const path = repository.startsWith('file://') ? new URL(repository).pathname : repository;
  if (form.host === 'local' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(repository) && !isAbsolute(path))
    errors.repository = 'must be an absolute path on the server';
  else {
    try {
      ({ repository, detectedBase } = await resolveRepository(repository, form.host));
      checkHostSettings(form.host, { repository, hostSettings });
    } catch (error) {
      if (!(error instanceof ProjectSettingsError)) throw error;
      errors.repository = error.message;
    }
  }
  let checks: Awaited<ReturnType<typeof parseCheckSettings>> = {};
  try {
    checks = await parseCheckSettings(
      {
        checkCommand: form.checkCommand,
        checkTimeoutSeconds: form.checkTimeoutSeconds ? Number(form.checkTimeoutSeconds) : null,
        onCheckFailure: form.onCheckFailure,
        setupCommand: form.setupCommand,
        agentCommands: form.agentCommands === 'on',
      },
      sandbox,
    );
  } catch (error) {
    if (!(error instanceof CheckSettingsError)) throw error;
    errors[error.field] = error.message;
  }
  const baseBranch = form.baseBranch || detectedBase || 'main';
  if (form.host === 'local' && !errors.repository) {
    try {
      await checkLocalRepository(repository, baseBranch);
    } catch (error) {
      if (!(error instanceof RepositoryCheckError)) throw error;
      errors[error.field] = error.message;
    }
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  return {
    ok: true,
    value: {
      project: {
        name: form.name,
        repository,
        host: form.host,
        baseBranch,
        publish: form.publish,
        defaultModel: form.defaultModel ?? null,
        allowedModels: allowedModels.length ? allowedModels : null,
        dailyBudgetUsd: 'value' in dailyBudget ? dailyBudget.value : null,
        hostSettings,
        builtInChecks: form.builtInChecks === 'on',
        closePrOnArchive: form.closePrOnArchive === 'on',
        quoteContext: form.quoteContext === 'on',
        mention: form.mention || DEFAULT_PROJECT_MENTION,
        ...checks,
      },
      token: form.host === 'local' || form.token === '' ? null : form.token,
    },
  };
}
