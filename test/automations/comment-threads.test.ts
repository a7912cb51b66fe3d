/**
 * A comment's thread, against each code host's double (issue 33, items 4 and 8): the service's
 * "On it" goes to the thread's own repository (a context repository's pull request is answered
 * there, with the context repository's token, not on the content repository's issue of the same
 * number), and a comment starts work only when its author is named by the automation or the host,
 * asked once, says they may write to that repository.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentAuthorChecker, threadReplier } from '../../src/background/thread-replies.js';
import { loadConfig } from '../../src/config/config.js';
import type { CommentEvent, RepositoryMatch } from '../../src/domain/host-event.js';
import type { CodeHostKind } from '../../src/domain/project.js';
import { createCodeHosts } from '../../src/hosts/index.js';
import { createLogger } from '../../src/log.js';
import { type HostEventDeps, processHostEvent } from '../../src/operations/host-events.js';
import { createSecretBox } from '../../src/store/secrets.js';
import { answerMentions, receivedEvent } from '../support/automation-inputs.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { type GiteaDouble, startGiteaDouble } from '../support/gitea-double.js';
import { type GithubDouble, startGithubDouble } from '../support/github-double.js';
import { type GitlabDouble, startGitlabDouble } from '../support/gitlab-double.js';
import { doubleUserId } from '../support/host-hooks.js';

const box = createSecretBox('comment-threads-test-key-0123456789abcdef');
// The doubles take one token: the project's and the context repository's are the same here.
const TOKEN = 'host-token-0123456789';
const WEB = 'https://code.example.test';

interface Double {
  url: string;
  requests: { method: string; path: string; status: number }[];
  /** Comments posted on `owner/name`'s threads. */
  comments(fullName: string): { number: number; body: string }[];
  /** Gives `login` write access to `owner/name` (GitHub write, GitLab Developer, Gitea write). */
  writer(fullName: string, login: string): void;
  /** Gives `login` only read access (GitHub read: a MEMBER of the organisation; GitLab Reporter). */
  reader(fullName: string, login: string): void;
  /** The next requests answer 403 (refused), or 500 until the client's retries are spent (an outage). */
  refuse(kind: 'forbidden' | 'outage'): void;
  close(): Promise<void>;
}

/** The double of `host`, as these tests use it. */
async function startDouble(host: Exclude<CodeHostKind, 'local'>): Promise<Double> {
  const split = (fullName: string) => fullName.split('/') as [string, string];
  if (host === 'gitlab') {
    const double: GitlabDouble = await startGitlabDouble({ token: TOKEN, webBase: WEB });
    return {
      url: double.url,
      requests: double.requests,
      comments: (path) => double.project(path).notes.map((note) => ({ number: note.iid, body: note.body })),
      writer: (path, login) => {
        double.project(path).members[login] = 30;
      },
      reader: (path, login) => {
        double.project(path).members[login] = 20;
      },
      refuse: (kind) => (kind === 'forbidden' ? double.fail('forbidden') : double.fail('server_error', 4)),
      close: () => double.close(),
    };
  }
  // GitHub and Gitea keep comments and collaborators alike; a refused write on GitHub is its archived one.
  const double: GithubDouble | GiteaDouble =
    host === 'github'
      ? await startGithubDouble({ token: TOKEN, htmlBase: WEB })
      : await startGiteaDouble({ token: TOKEN, webBase: WEB });
  const forbid = () =>
    host === 'github' ? (double as GithubDouble).fail('archived') : (double as GiteaDouble).fail('forbidden');
  return {
    url: double.url,
    requests: double.requests,
    comments: (fullName) => double.repository(...split(fullName)).comments,
    writer: (fullName, login) => {
      double.repository(...split(fullName)).collaborators[login] = 'write';
    },
    reader: (fullName, login) => {
      double.repository(...split(fullName)).collaborators[login] = 'read';
    },
    refuse: (kind) => (kind === 'forbidden' ? forbid() : double.fail('server_error', 4)),
    close: () => double.close(),
  };
}

const HOSTS = ['github', 'gitlab', 'gitea'] as const;
const cases = HOSTS.flatMap((host) => testDialects().map((dialect) => [host, dialect] as const));

describe.each(cases)('a comment’s thread on %s, on %s', (host, dialect) => {
  let database: TestStore;
  let double: Double;
  let dir: string;
  const logged: string[] = [];
  let deps: HostEventDeps;
  let projectId = '';
  let deliveries = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentjobs-threads-'));
    database = await openTestStore(dialect);
    double = await startDouble(host);
    const config = loadConfig({ AGENTJOBS_DATA_DIR: dir });
    const { store } = database;
    const project = await store.projects.create(
      {
        name: 'Docs',
        repository: `${WEB}/org/repo.git`,
        host,
        hostSettings: { apiUrl: double.url },
      },
      { token: TOKEN, secrets: box },
    );
    projectId = project.id;
    // The product's repository on the same instance, with its own (sealed) token.
    await store.contextRepositories.add(
      { projectId, name: 'product', repository: `${WEB}/acme/product.git`, ref: 'main', host },
      { token: TOKEN, secrets: box },
    );
    const hosts = createCodeHosts({
      secret: (of) => store.projects.hostToken(of.id, box),
      contextSecret: (of, name) => store.contextRepositories.token(of.id, name, box),
      pullRequests: store.pullRequests,
      askpassDir: join(dir, 'askpass'),
      publicUrl: 'https://agentjobs.example.test',
      githubRetry: { baseMs: 1, pacing: false },
      restRetry: { baseMs: 1 },
    });
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          logged.push(String(chunk));
          done();
        },
      }),
    );
    deps = {
      store,
      config,
      automations: config.automations,
      log: logger,
      reply: threadReplier({ store, hosts, publicUrl: () => 'https://agentjobs.example.test' }),
      authorCanWrite: commentAuthorChecker({ store, hosts, logger }),
    };
  });
  afterAll(async () => {
    await double?.close();
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const automation = (allowedAuthors: string[] = []) =>
    database.store.automations.create(answerMentions(projectId, allowedAuthors));

  const comment = (repository: RepositoryMatch, author: string, number = 5): CommentEvent => {
    const fullName = repository.kind === 'content' ? 'org/repo' : 'acme/product';
    const url = `${WEB}/${fullName}/pull/${number}`;
    return {
      kind: 'comment',
      repository,
      target: { type: 'pull_request', number, url, title: 'Add --verbose' },
      body: '@agentjobs please document this',
      author,
      authorId: doubleUserId(author),
      url: `${url}#issuecomment-${++deliveries}`,
    };
  };
  const received = (event: CommentEvent) => receivedEvent(projectId, event, host);
  const permissionRequests = () =>
    double.requests.filter((request) => /\/(permission|members\/all\/\d+)$/.test(request.path));

  it('answers a comment on a context repository’s pull request on that pull request', async () => {
    const made = await automation();
    double.writer('acme/product', 'lead');
    const event = comment({ kind: 'context', name: 'product' }, 'lead', 5);
    const { runs } = await processHostEvent(deps, received(event));
    expect(runs).toEqual([expect.objectContaining({ automationId: made.id, outcome: 'created' })]);
    const job = await database.store.jobs.get(projectId, runs[0]?.jobId ?? '');
    expect(double.comments('acme/product')).toEqual([
      { number: 5, body: `On it: https://agentjobs.example.test/ui/projects/${projectId}/jobs/${job?.id}` },
    ]);
    // Nothing on the content repository's issue or pull request with the same number.
    expect(double.comments('org/repo')).toEqual([]);
    await database.store.automations.delete(projectId, made.id);
  });

  it('starts work only for an author the host says may write, asking it once per comment', async () => {
    const strict = await automation();
    const lenient = await automation(['Named-Reader']);
    double.writer('org/repo', 'writer');
    double.reader('org/repo', 'reader');
    double.reader('org/repo', 'named-reader');
    const before = permissionRequests().length;

    const outcomes = async (author: string) =>
      (await processHostEvent(deps, received(comment({ kind: 'content' }, author)))).runs.map((run) => [
        run.automationId,
        run.outcome,
        run.reason,
      ]);
    // Read access (GitHub: an organisation MEMBER with the read role) starts nothing.
    expect(await outcomes('reader')).toEqual([
      [strict.id, 'skipped', 'untrusted_author'],
      [lenient.id, 'skipped', 'untrusted_author'],
    ]);
    expect(await outcomes('stranger')).toEqual([
      [strict.id, 'skipped', 'untrusted_author'],
      [lenient.id, 'skipped', 'untrusted_author'],
    ]);
    expect(await outcomes('writer')).toEqual([
      [strict.id, 'created', null],
      [lenient.id, 'created', null],
    ]);
    // A named author is trusted by the automation that names them; the other asked the host.
    expect(await outcomes('named-reader')).toEqual([
      [strict.id, 'skipped', 'untrusted_author'],
      [lenient.id, 'created', null],
    ]);
    // One question per comment, whatever the number of automations.
    expect(permissionRequests().length - before).toBe(4);
    expect(permissionRequests().every((request) => request.status === 200 || request.status === 404)).toBe(
      true,
    );
    expect(logged.join('')).toContain('comment author may not write to the repository');
    await database.store.automations.delete(projectId, strict.id);
    await database.store.automations.delete(projectId, lenient.id);
  });

  it('asks the host nothing when every automation names the author', async () => {
    const named = await automation(['writer']);
    const before = permissionRequests().length;
    const { runs } = await processHostEvent(deps, received(comment({ kind: 'content' }, 'writer')));
    expect(runs).toEqual([expect.objectContaining({ outcome: 'created' })]);
    expect(permissionRequests().length).toBe(before);
    await database.store.automations.delete(projectId, named.id);
  });

  it('starts nothing when the host refuses the question, and tries the event again after an outage', async () => {
    const made = await automation();
    double.writer('org/repo', 'writer');
    double.refuse('forbidden');
    const refused = await processHostEvent(deps, received(comment({ kind: 'content' }, 'writer')));
    expect(refused.runs).toEqual([
      expect.objectContaining({ outcome: 'skipped', reason: 'untrusted_author' }),
    ]);
    expect(logged.join('')).toContain("could not read a comment author's permission");

    double.refuse('outage');
    const event = received(comment({ kind: 'content' }, 'writer'));
    await expect(processHostEvent(deps, event)).rejects.toMatchObject({ isRetryable: true });
    // Nothing was recorded: the dispatcher leaves the event for another try, which now succeeds.
    expect((await database.store.automations.runs(made.id, { limit: 10 })).runs).toHaveLength(1);
    const again = await processHostEvent(deps, event);
    expect(again.runs).toEqual([expect.objectContaining({ outcome: 'created' })]);
    await database.store.automations.delete(projectId, made.id);
  });
});
