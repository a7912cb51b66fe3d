/**
 * Receiving one code-host hook delivery (docs/api.md#code-host-webhooks), with no server in
 * sight: the receiver route hands it the project, the host, the headers and the raw body, and
 * answers with what this returns. In order:
 * 1. the project must exist (an unknown one is `project_not_found`: project ids are not secrets,
 *    and a host's delivery log then says plainly that the URL is wrong);
 * 2. the project must have a hook secret, and the delivery must prove it (`unauthorized`),
 *    checked on the raw bytes in constant time before anything else of the body is read;
 * 3. the body is read as JSON (`parseJsonBytes`: prototype poisoning refused) and as the host's
 *    event; events not read are `ignored`;
 * 4. the payload's repository must be the project's content repository or one of its context
 *    repositories, else `ignored`;
 * 5. the event is recorded once per delivery id (a repeat is `duplicate`); the automations take it
 *    from there (`store.hostEvents.claimUnprocessed`, `operations/host-events.ts`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../domain/errors.js';
import type { HookHost } from '../domain/hook-secret.js';
import { parseJsonBytes } from '../domain/json.js';
import type { Project } from '../domain/project.js';
import { matchRepository, type RepositoryCandidate } from '../domain/repository-match.js';
import { HookPayloadError, type ReadHook, readHook, verifyHookSignature } from '../hosts/hooks/index.js';
import type { RecordResult } from '../store/host-events.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';

/** How often a process drops events past their 7 days (at most once an hour, on a delivery). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** The host's name as a user reads it. */
export const HOOK_HOST_TITLES: Record<HookHost, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  gitea: 'Gitea or Forgejo',
};

/** What receiving needs. */
export interface HookReceiptDeps {
  store: Store;
  /** The process's secret box: hook secrets are sealed with it. */
  secrets: () => SecretBox;
  /**
   * The project's context repositories as candidates for a payload's repository (beside the
   * content repository, which is always tried first). Default: the project's context repositories.
   */
  contextCandidates?: (projectId: string) => Promise<RepositoryCandidate[]>;
  /**
   * Called once a delivery is recorded, or found to be a repeat (`duplicate: true`, the event as
   * first recorded), before the answer: where the automations note a skipped `duplicate` run.
   */
  onRecorded?: (result: RecordResult) => void | Promise<void>;
}

/** One delivery as it arrived. */
export interface HookDelivery {
  projectId: string;
  host: HookHost;
  headers: IncomingHttpHeaders;
  /** The body's bytes, exactly as sent: the signature is over them. */
  body: Buffer;
}

/** What became of a delivery: the answer the host gets. */
export interface HookReceipt {
  /** recorded: new; duplicate: this delivery id was seen in the last 7 days; ignored: nothing to do. */
  outcome: 'recorded' | 'duplicate' | 'ignored';
  duplicate: boolean;
  /** The recorded event (the first one, for a duplicate). */
  eventId: string | null;
  /** Why an ignored delivery was ignored. */
  reason: string | null;
}

/** The receipt, with what a log line says about the delivery. */
export interface ReceivedHook {
  receipt: HookReceipt;
  deliveryId: string;
  eventName: string;
}

/** Receives deliveries; one per process, as it drops events past their retention now and then. */
export type HookReceiver = (delivery: HookDelivery) => Promise<ReceivedHook>;

async function provenProject(deps: HookReceiptDeps, delivery: HookDelivery): Promise<Project> {
  const { projectId, host } = delivery;
  const project = await deps.store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  const secret = await deps.store.projects.hookSecret(project.id, deps.secrets());
  if (secret === null)
    throw new AppError(
      'unauthorized',
      `The project has no hook secret yet: make one with \`agentjobs project hook-secret ${project.id}\` or in the dashboard's project settings, and give it to the host.`,
    );
  if (!(await verifyHookSignature(host, delivery.headers, delivery.body, secret)))
    throw new AppError(
      'unauthorized',
      `The ${HOOK_HOST_TITLES[host]} signature is missing or wrong for this project's hook secret.`,
    );
  return project;
}

/** The event the (signed) body holds. @throws AppError `invalid_json`, `invalid_request` */
function readDelivery(delivery: HookDelivery): ReadHook {
  const payload = parseJsonBytes(delivery.body);
  try {
    return readHook(delivery.host, delivery.headers, delivery.body, payload);
  } catch (error) {
    if (error instanceof HookPayloadError)
      throw new AppError('invalid_request', error.message, {
        details: [{ path: error.path ? `body.${error.path}` : 'body', message: error.message }],
      });
    throw error;
  }
}

const ignoredReceipt = (reason: string): HookReceipt => ({
  outcome: 'ignored',
  duplicate: false,
  eventId: null,
  reason,
});

/**
 * A receiver over `deps`.
 * @throws AppError `project_not_found`, `unauthorized`, `invalid_json`, `invalid_request`
 */
export function hookReceiver(deps: HookReceiptDeps): HookReceiver {
  let prunedAt = 0;
  const contextRepositoriesOf = async (projectId: string): Promise<RepositoryCandidate[]> =>
    (await deps.store.contextRepositories.list(projectId)).map((context) => ({
      match: { kind: 'context', name: context.name },
      repository: context.repository,
    }));
  const pruneNowAndThen = async () => {
    if (Date.now() - prunedAt <= PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    await deps.store.hostEvents.prune();
  };

  return async (delivery) => {
    const project = await provenProject(deps, delivery);
    const read = readDelivery(delivery);
    const said = (receipt: HookReceipt) => ({
      receipt,
      deliveryId: read.deliveryId,
      eventName: read.eventName,
    });
    if (read.kind === 'ignored') return said(ignoredReceipt(read.reason));
    const candidates: RepositoryCandidate[] = [
      { match: { kind: 'content' }, repository: project.repository },
      ...(await (deps.contextCandidates ?? contextRepositoriesOf)(project.id)),
    ];
    const repository = matchRepository(read.repository, candidates);
    if (!repository)
      return said(ignoredReceipt(`repository ${read.repository.fullName ?? 'unnamed'} is not the project's`));

    await pruneNowAndThen();
    const result = await deps.store.hostEvents.record({
      projectId: project.id,
      host: delivery.host,
      deliveryId: read.deliveryId,
      event: read.event(repository),
    });
    await deps.onRecorded?.(result);
    return said({
      outcome: result.duplicate ? 'duplicate' : 'recorded',
      duplicate: result.duplicate,
      eventId: result.event.id,
      reason: null,
    });
  };
}
