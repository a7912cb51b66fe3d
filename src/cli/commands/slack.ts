/**
 * `agentjobs slack connect` (docs/slack.md#the-secrets): seals the Slack app's secrets into the
 * database, under the server's secret key like a code host's token, for an install that would
 * rather not keep them in the environment. They are read from standard input as
 * `AGENTJOBS_SLACK_…=value` lines (never from arguments: the process list is public); a name given
 * with no value removes that secret. `AGENTJOBS_SLACK_*` set for the server still wins.
 */
import type { Command } from 'commander';
import { type SlackCredentials, storeSlackCredentials } from '../../conversations/slack/credentials.js';
import { lazySecretBox } from '../../store/secrets.js';
import { withStore } from '../local.js';
import { CliError, type OutputOptions, print } from '../output.js';

const NAMES: Record<string, { key: keyof SlackCredentials; shape: RegExp }> = {
  AGENTJOBS_SLACK_SIGNING_SECRET: { key: 'signingSecret', shape: /^\S{8,}$/ },
  AGENTJOBS_SLACK_BOT_TOKEN: { key: 'botToken', shape: /^xoxb-\S+$/ },
  AGENTJOBS_SLACK_APP_TOKEN: { key: 'appToken', shape: /^xapp-\S+$/ },
};

/** The secrets in `text`'s lines; never echoes a value back. */
export function readSecretLines(text: string): Partial<SlackCredentials> {
  const given: Partial<SlackCredentials> = {};
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    const name = equals < 0 ? line : line.slice(0, equals).trim();
    const known = NAMES[name];
    if (!known)
      throw new CliError(
        `Line ${index + 1}: expected AGENTJOBS_SLACK_SIGNING_SECRET, _BOT_TOKEN or _APP_TOKEN.`,
      );
    const value = equals < 0 ? '' : line.slice(equals + 1).trim();
    if (value && !known.shape.test(value))
      throw new CliError(`Line ${index + 1}: ${name} does not look right.`);
    given[known.key] = value || null;
  }
  return given;
}

export function registerSlackCommands(program: Command) {
  const slack = program.command('slack').description('The Slack app (works on the local database)');
  slack
    .command('connect')
    .description(
      'Store the Slack app’s secrets, sealed, from AGENTJOBS_SLACK_…=value lines on standard input',
    )
    .option('--json', 'machine-readable output')
    .action(async (options: OutputOptions) => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      const given = readSecretLines(Buffer.concat(chunks).toString('utf8'));
      if (Object.keys(given).length === 0) throw new CliError('Nothing on standard input to store.');
      const stored = await withStore((store, config) =>
        storeSlackCredentials(store, lazySecretBox(config), given),
      );
      const set = Object.fromEntries(Object.entries(stored).map(([key, value]) => [key, value !== null]));
      print(options, { stored: set }, () =>
        [
          'Stored the Slack app’s secrets (sealed). The server reads them at its next start:',
          ...Object.entries(set).map(([key, has]) => `  ${key.padEnd(14)} ${has ? 'set' : 'not set'}`),
        ].join('\n'),
      );
    });
}
