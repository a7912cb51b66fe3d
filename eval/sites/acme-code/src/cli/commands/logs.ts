import { type Command, option } from '../command.js';
import { printLogs, streamLogs } from '../logs.js';

/** `acme logs`: shows the logs of an environment, or of one deployment, and can follow them. */
export const logs: Command = {
  name: 'logs',
  summary: 'Show and stream logs',
  options: [
    option.string('env', { default: 'production', help: 'The environment whose logs to show.' }),
    option.boolean('follow', { help: 'Keep printing new lines as they arrive.' }),
    // Changed in 2.4.0: one hour back by default, it was 15 minutes.
    option.duration('since', { default: '1h', help: 'How far back to start, for example 1h or 2d.' }),
    option.string('grep', { help: 'Show only lines that contain this text.' }),
    option.string('deployment', { help: 'Show the logs of this deployment only.' }),
  ],
  async run(args) {
    const query = { env: args.env, since: args.since, grep: args.grep, deployment: args.deployment };
    return args.follow ? streamLogs(query) : printLogs(query);
  },
};
