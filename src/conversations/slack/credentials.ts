/**
 * The Slack app's secrets (docs/slack.md#the-secrets): the signing secret, the bot token and the
 * app-level token. Each comes from the environment (`AGENTJOBS_SLACK_*`), or else from the
 * database, where `agentjobs slack connect` sealed it with the server's secret box like a code
 * host's token. They go to Slack's clients and the signature check only: never to a log, an
 * event, an error or a child's environment.
 */
import type { SlackConfig } from '../../config/config.js';
import type { SecretBox } from '../../store/secrets.js';
import type { Store } from '../../store/store.js';

export interface SlackCredentials {
  signingSecret: string | null;
  botToken: string | null;
  appToken: string | null;
}

/** The settings row the sealed secrets live in, and what the seal is bound to. */
const SETTING = 'slack.credentials';

export async function readSlackCredentials(
  config: SlackConfig,
  store: Pick<Store, 'admin'>,
  secrets: () => SecretBox,
): Promise<SlackCredentials> {
  const sealed = await store.admin.getSetting(SETTING);
  const stored: Partial<SlackCredentials> = sealed
    ? (JSON.parse(secrets().open(sealed, SETTING)) as Partial<SlackCredentials>)
    : {};
  return {
    signingSecret: config.signingSecret ?? stored.signingSecret ?? null,
    botToken: config.botToken ?? stored.botToken ?? null,
    appToken: config.appToken ?? stored.appToken ?? null,
  };
}

/** Seals the given secrets into the database, keeping the stored ones not given; null removes one. */
export async function storeSlackCredentials(
  store: Pick<Store, 'admin'>,
  secrets: () => SecretBox,
  given: Partial<SlackCredentials>,
): Promise<SlackCredentials> {
  const sealed = await store.admin.getSetting(SETTING);
  const stored: Partial<SlackCredentials> = sealed
    ? (JSON.parse(secrets().open(sealed, SETTING)) as Partial<SlackCredentials>)
    : {};
  const next: SlackCredentials = {
    signingSecret: stored.signingSecret ?? null,
    botToken: stored.botToken ?? null,
    appToken: stored.appToken ?? null,
  };
  for (const key of Object.keys(given) as (keyof SlackCredentials)[]) {
    if (given[key] !== undefined) next[key] = given[key];
  }
  await store.admin.putSetting(SETTING, secrets().seal(JSON.stringify(next), SETTING));
  return next;
}
