/**
 * `agentjobs project slack add|list|remove PROJECT --channel C… --user U…` (docs/slack.md): the
 * Slack channels whose mentions ask the project, and the Slack users who alone may ask it when any
 * are listed. Admin commands on the service's own database, like `project hook-secret`.
 */
import type { Command } from 'commander';
import { SLACK_CHANNEL_ID, SLACK_USER_ID } from '../../domain/slack.js';
import { requireProject, withStore } from '../local.js';
import { CliError, type OutputOptions, print } from '../output.js';

interface MappingOptions extends OutputOptions {
  channel?: string[];
  user?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function checked(options: MappingOptions): { channels: string[]; users: string[] } {
  const channels = options.channel ?? [];
  const users = options.user ?? [];
  for (const channel of channels)
    if (!SLACK_CHANNEL_ID.test(channel))
      throw new CliError(`--channel must be a Slack channel id like C0123ABCD (got "${channel}")`);
  for (const user of users)
    if (!SLACK_USER_ID.test(user))
      throw new CliError(`--user must be a Slack user id like U0123ABCD (got "${user}")`);
  if (channels.length + users.length === 0) throw new CliError('Give at least one --channel or --user.');
  return { channels, users };
}

function describe(mapping: { projectId: string; channels: string[]; users: string[] }): string {
  return [
    `Slack for project ${mapping.projectId}:`,
    `  channels  ${mapping.channels.join(', ') || '(none: mentions ask nothing)'}`,
    `  users     ${mapping.users.join(', ') || '(none listed: anyone in a mapped channel may ask)'}`,
  ].join('\n');
}

export function registerProjectSlackCommands(project: Command) {
  const slack = project
    .command('slack')
    .description('The Slack channels that ask a project, and who may ask');
  slack
    .command('add <project>')
    .description('Map Slack channels to the project, or list Slack users who alone may ask it')
    .option('--channel <id>', 'a channel id (C…); repeat for more', collect)
    .option('--user <id>', 'a user id (U…) who may ask; repeat for more', collect)
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: MappingOptions) => {
      const { channels, users } = checked(options);
      const mapping = await withStore(async (store) => {
        const found = await requireProject(store, id);
        for (const channel of channels) {
          if (!(await store.slack.addChannel(found.id, channel)))
            throw new CliError(
              `Channel ${channel} asks project ${await store.slack.channelProject(channel)} already; remove it there first.`,
              'slack_channel_taken',
            );
        }
        for (const user of users) await store.slack.addUser(found.id, user);
        return { projectId: found.id, ...(await store.slack.mapping(found.id)) };
      });
      print(options, mapping, () => describe(mapping));
    });
  slack
    .command('remove <project>')
    .description('Unmap Slack channels from the project, or take users off its list')
    .option('--channel <id>', 'a channel id (C…); repeat for more', collect)
    .option('--user <id>', 'a user id (U…); repeat for more', collect)
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: MappingOptions) => {
      const { channels, users } = checked(options);
      const mapping = await withStore(async (store) => {
        const found = await requireProject(store, id);
        for (const channel of channels) await store.slack.removeChannel(found.id, channel);
        for (const user of users) await store.slack.removeUser(found.id, user);
        return { projectId: found.id, ...(await store.slack.mapping(found.id)) };
      });
      print(options, mapping, () => describe(mapping));
    });
  slack
    .command('list <project>')
    .description('The Slack channels mapped to the project and the users listed for it')
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: OutputOptions) => {
      const mapping = await withStore(async (store) => {
        const found = await requireProject(store, id);
        return { projectId: found.id, ...(await store.slack.mapping(found.id)) };
      });
      print(options, mapping, () => describe(mapping));
    });
}
