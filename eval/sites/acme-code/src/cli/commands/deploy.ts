import { type Command, option } from '../command.js';
import { followBuild, upload, waitUntilLive } from '../deployments.js';

/** `acme deploy`: uploads the current folder, builds it and starts it in an environment. */
export const deploy: Command = {
  name: 'deploy',
  summary: 'Deploy the current folder',
  options: [
    option.string('env', { default: 'production', help: 'The environment to deploy to.' }),
    option.string('message', { help: 'A note shown with the deployment in the dashboard.' }),
    option.boolean('no-cache', { help: 'Build without the build cache.' }),
    option.boolean('detach', { help: 'Return as soon as the upload is done.' }),
    option.number('wait-timeout', {
      default: 600,
      help: 'Seconds to wait for the deployment to go live before giving up; exits with code 3 when they run out.',
    }),
  ],
  async run(args) {
    const deployment = await upload(args.env, args.message, { cache: !args['no-cache'] });
    if (args.detach) return 0;
    const built = await followBuild(deployment);
    if (!built) return 1;
    const live = await waitUntilLive(deployment, args['wait-timeout'] * 1000);
    if (live === 'timeout') return 3;
    return live === 'live' ? 0 : 1;
  },
};
