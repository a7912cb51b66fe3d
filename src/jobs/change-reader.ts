/**
 * The change a code_change automation's prompt quotes (`{{change.diff}}`, `{{change.files}}`,
 * DESIGN section 3): read from the context repository's mirror, the one the worker reads, fetched
 * first so the head the host named is there. Without a `from` (the first change the automation
 * sees) it is the head commit's own change, against its first parent. The content repository is
 * not read here: `processHostEvent` falls back to the files the host named.
 */
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { ReceivedHostEvent } from '../domain/host-event.js';
import { fetchContextRepository } from '../git/context-mirror.js';
import { runGit } from '../git/run.js';
import { contextGitEnv } from '../hosts/context-access.js';
import { lazySecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import type { HostEventDeps } from './host-events.js';

/** More than any prompt quotes (`AGENTJOBS_TRIGGER_DIFF_CHARS` cuts it): git stops there. */
const MAX_DIFF_BYTES = 4 * 1024 * 1024;
const COMMIT_ID = /^[0-9a-f]{7,64}$/i;

/** `HostEventDeps.readChange` for the project's context repositories. */
export function contextChangeReader(deps: {
  store: Store;
  config: Pick<Config, 'dataDir' | 'secretKey'>;
}): NonNullable<HostEventDeps['readChange']> {
  const secrets = lazySecretBox(deps.config);
  return async (projectId, repository: ReceivedHostEvent['event']['repository'], from, to) => {
    if (repository.kind !== 'context') throw new Error('only a context repository is read');
    if (!COMMIT_ID.test(to) || (from !== null && !COMMIT_ID.test(from)))
      throw new Error('the host named no commit id');
    const context = (await deps.store.contextRepositories.list(projectId)).find(
      (candidate) => candidate.name === repository.name,
    );
    if (!context) throw new Error(`no context repository ${repository.name}`);
    const token = context.hasToken
      ? await deps.store.contextRepositories.token(projectId, context.name, secrets())
      : null;
    const { gitDir } = await fetchContextRepository({
      mirrorsDir: join(deps.config.dataDir, 'mirrors'),
      projectId,
      name: context.name,
      repository: context.repository,
      ref: context.ref,
      env: contextGitEnv(join(deps.config.dataDir, 'askpass'), context.host, token),
      freshSince: Date.now(),
    });
    const range = from === null ? [`${to}^1`, to] : [from, to];
    const git = async (args: string[]) =>
      (await runGit(args, { cwd: gitDir, maxStdoutBytes: MAX_DIFF_BYTES })).stdout.toString('utf8');
    const names = await git(['diff', '--name-only', '-z', ...range, '--']);
    const diff = await git(['diff', '--no-color', '--no-ext-diff', ...range, '--']);
    return { diff, files: names.split('\0').filter(Boolean) };
  };
}
