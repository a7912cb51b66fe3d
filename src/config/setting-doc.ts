import type { z } from 'zod';

/**
 * What a setting's entry in the configuration reference says. The reference
 * (`docs/configuration.md`) is generated from these (`npm run config-reference`), so a setting
 * cannot be added without its documentation, and the page cannot drift from the code.
 */
export interface SettingDoc {
  group: SettingGroup;
  description: string;
  /** The default as a person reads it, where the parsed default says it badly or is computed. */
  shownDefault?: string;
}

export const SETTING_GROUPS = {
  server: 'The server',
  models: 'Models and spend',
  limits: 'API limits',
  worker: 'Workers and jobs',
  checks: 'Checks, the sandbox and the environment',
  automations: 'Automations',
  webhooks: 'Webhooks',
  observability: 'Logs and metrics',
  slack: 'Slack',
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;

/** Attaches a setting's documentation to its parser, where the reference generator finds it. */
export function documented<T extends z.ZodType>(parser: T, doc: SettingDoc): T {
  return parser.meta({ ...doc }) as T;
}
