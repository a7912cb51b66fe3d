/**
 * The code hosts' webhooks into the service (docs/automations.md): the hosts that can
 * send them, the secret a project's hooks are signed or carry, where each host sends them, and
 * what to tick on each host. Pure: the receiver (`api/routes/hooks.ts`), the CLI and the dashboard
 * read these.
 */
import { randomBytes } from 'node:crypto';

/** The hosts whose webhooks the receiver reads (the local host has none: it is polled). */
export const HOOK_HOSTS = ['github', 'gitlab', 'gitea'] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];

/**
 * A new hook secret: 32 random bytes in base64url, behind a prefix that says what it is (so one
 * found in a paste is recognised). Only characters every host's secret field takes.
 */
export const newHookSecret = (): string => `hooksec_${randomBytes(32).toString('base64url')}`;

/** Where `host` sends a project's hooks: `{publicUrl}/v2/hooks/{projectId}/{host}`. */
export const hookUrl = (publicUrl: string, projectId: string, host: HookHost): string =>
  `${publicUrl.replace(/\/+$/, '')}/v2/hooks/${encodeURIComponent(projectId)}/${host}`;

/** How to set up one host's webhook, for people: a name and the steps, in order. */
export interface HookSetup {
  host: HookHost;
  title: string;
  steps: string[];
}

/** The steps per host; `{url}` and the secret are filled in by whoever shows them. */
export const HOOK_SETUP: readonly HookSetup[] = [
  {
    host: 'github',
    title: 'GitHub',
    steps: [
      'In the repository (or the organization): Settings → Webhooks → Add webhook.',
      'Payload URL: the GitHub URL above. Content type: application/json. Secret: the hook secret.',
      'Which events: "Let me select individual events", then tick Pushes, Pull requests, Issues (for issue automations), Issue comments and Pull request review comments.',
      'Keep "Active" ticked and save; GitHub sends a ping, which is answered 202 and ignored.',
    ],
  },
  {
    host: 'gitlab',
    title: 'GitLab',
    steps: [
      'In the project (or the group): Settings → Webhooks → Add new webhook.',
      'URL: the GitLab URL above. Secret token: the hook secret.',
      'Trigger: tick Push events, Comments, Issues events (for issue automations) and Merge request events.',
      'Keep SSL verification on and save.',
    ],
  },
  {
    host: 'gitea',
    title: 'Gitea and Forgejo',
    steps: [
      'In the repository (or the organization): Settings → Webhooks → Add webhook → Gitea (Forgejo: Forgejo).',
      'Target URL: the Gitea URL above. HTTP method POST, content type application/json. Secret: the hook secret.',
      'Trigger on: "Custom events", then tick Push, Pull request, Issues and Issue label (for issue automations), Issue comment and Pull request comment.',
      'Keep "Active" ticked and save.',
    ],
  },
];
