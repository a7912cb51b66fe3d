/**
 * The code hosts' webhooks (docs/api.md#code-host-webhooks):
 * `POST /v2/hooks/{projectId}/{github|gitlab|gitea}`, with no API key: the host's own proof of the
 * project's hook secret instead, checked on the raw body in constant time. A delivery is recorded
 * in the database before it is answered (202), once per delivery id; the automations take it from
 * there (`store.hostEvents.claimUnprocessed`).
 *
 * An unknown project is 404 rather than 401: project ids are not secrets (they are in every job
 * URL and hook URL), and a host's delivery log then says plainly that the URL is wrong. Nothing
 * about the project but its existence is told before the signature is checked.
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import secureJson from 'secure-json-parse';
import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { HOOK_HOSTS, type HookHost } from '../../domain/hook-secret.js';
import { matchRepository, type RepositoryCandidate } from '../../domain/repository-match.js';
import { HookPayloadError, readHook, verifyHookSignature } from '../../hosts/hooks/index.js';
import type { RecordResult } from '../../store/host-events.js';
import type { SecretBox } from '../../store/secrets.js';
import type { Store } from '../../store/store.js';
import { errorResponse, jsonResponse, projectParams } from '../schemas.js';

/** The largest delivery taken; beyond it, 413 (GitHub's own cap is 25 MB, its pushes are far smaller). */
export const HOOK_BODY_LIMIT_BYTES = 1024 * 1024;
/** How often a process drops events past their 7 days (at most once an hour, on a delivery). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface HookRoutesOptions {
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

export const hookReceiptSchema = z
  .object({
    outcome: z
      .enum(['recorded', 'duplicate', 'ignored'])
      .describe(
        'recorded: new; duplicate: this delivery id was seen in the last 7 days; ignored: nothing to do',
      ),
    duplicate: z.boolean(),
    eventId: z.string().nullable().describe('The recorded event (the first one, for a duplicate)'),
    reason: z.string().nullable().describe('Why an ignored delivery was ignored'),
  })
  .meta({ id: 'HookReceipt' });
type HookReceipt = z.infer<typeof hookReceiptSchema>;

const HEADERS: Record<HookHost, Record<string, string>> = {
  github: {
    'x-hub-signature-256': 'sha256= and the hex HMAC-SHA256 of the raw body under the hook secret',
    'x-github-event': 'push, pull_request, issue_comment, pull_request_review_comment (others are ignored)',
    'x-github-delivery': 'The delivery id, for deduplication',
  },
  gitlab: {
    'x-gitlab-token': 'The hook secret itself',
    'x-gitlab-event': 'Push Hook, Merge Request Hook, Note Hook (others are ignored)',
    'x-gitlab-event-uuid': 'The delivery id, for deduplication',
  },
  gitea: {
    'x-gitea-signature': 'The hex HMAC-SHA256 of the raw body under the hook secret',
    'x-gitea-event': 'push, pull_request, issue_comment, pull_request_comment (others are ignored)',
    'x-gitea-delivery': 'The delivery id, for deduplication',
  },
};

const TITLES: Record<HookHost, string> = { github: 'GitHub', gitlab: 'GitLab', gitea: 'Gitea or Forgejo' };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as JSON, read only after its signature passed. */
function parseJson(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid UTF-8.');
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  }
}

/** The raw body, for the signature: every media type the hosts send JSON as. */
async function rawBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/([\w.-]+\+)?json\s*(;|$)/i,
    { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );
}

export const hookRoutes: FastifyPluginAsyncZod<HookRoutesOptions> = async (app, options) => {
  const { store, secrets } = options;
  await rawBody(app);
  let prunedAt = 0;
  const contextRepositoriesOf = async (projectId: string): Promise<RepositoryCandidate[]> =>
    (await store.contextRepositories.list(projectId)).map((context) => ({
      match: { kind: 'context', name: context.name },
      repository: context.repository,
    }));

  for (const host of HOOK_HOSTS) {
    app.post(
      `/v2/hooks/:projectId/${host}`,
      {
        bodyLimit: HOOK_BODY_LIMIT_BYTES,
        schema: {
          operationId: `receive${host[0]?.toUpperCase()}${host.slice(1)}Hook`,
          summary: `Receive a ${TITLES[host]} webhook`,
          description: `The ${TITLES[host]} webhook of the project (no API key: the host proves the project's hook secret). Recorded before the answer, once per delivery id within 7 days; events not read, and repositories not the project's, are answered 202 and ignored.`,
          tags: ['Code-host hooks'],
          security: [],
          params: projectParams,
          headers: z.looseObject(
            Object.fromEntries(
              Object.entries(HEADERS[host]).map(([name, text]) => [
                name,
                z.string().optional().describe(text),
              ]),
            ),
          ),
          body: z
            .unknown()
            .describe(`The ${TITLES[host]} event payload, as the host sends it (JSON, at most 1 MiB)`),
          response: {
            202: jsonResponse('Recorded, a repeat, or ignored', hookReceiptSchema),
            400: errorResponse(
              'invalid_json, invalid_request: the body is not JSON, or lacks a part of the event',
            ),
            401: errorResponse('unauthorized: no hook secret made yet, or a missing or wrong signature'),
            404: errorResponse('project_not_found: no such project'),
            413: errorResponse('payload_too_large: the body is over 1 MiB'),
            415: errorResponse('unsupported_media_type: the body is not application/json'),
            503: errorResponse('unavailable: the database is unreachable; the host retries or redelivers'),
          },
        },
      },
      async (request, reply) => {
        const { projectId } = request.params;
        const project = await store.projects.get(projectId);
        if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
        const secret = await store.projects.hookSecret(project.id, secrets());
        if (secret === null)
          throw new AppError(
            'unauthorized',
            `The project has no hook secret yet: make one with \`agentjobs project hook-secret ${project.id}\` or in the dashboard's project settings, and give it to the host.`,
          );
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (!(await verifyHookSignature(host, request.headers, body, secret)))
          throw new AppError(
            'unauthorized',
            `The ${TITLES[host]} signature is missing or wrong for this project's hook secret.`,
          );

        let read: ReturnType<typeof readHook>;
        try {
          read = readHook(host, request.headers, body, parseJson(body));
        } catch (error) {
          if (error instanceof HookPayloadError)
            throw new AppError('invalid_request', error.message, {
              details: [{ path: error.path ? `body.${error.path}` : 'body', message: error.message }],
            });
          throw error;
        }
        const log = { projectId, host, deliveryId: read.deliveryId, event: read.eventName };
        const answer = (receipt: HookReceipt) => {
          request.log.info({ ...log, outcome: receipt.outcome, reason: receipt.reason }, 'code-host hook');
          return reply.code(202).send(receipt);
        };
        if (read.kind === 'ignored')
          return answer({ outcome: 'ignored', duplicate: false, eventId: null, reason: read.reason });
        const candidates: RepositoryCandidate[] = [
          { match: { kind: 'content' }, repository: project.repository },
          ...(await (options.contextCandidates ?? contextRepositoriesOf)(project.id)),
        ];
        const repository = matchRepository(read.repository, candidates);
        if (!repository)
          return answer({
            outcome: 'ignored',
            duplicate: false,
            eventId: null,
            reason: `repository ${read.repository.fullName ?? 'unnamed'} is not the project's`,
          });

        if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
          prunedAt = Date.now();
          await store.hostEvents.prune();
        }
        const result = await store.hostEvents.record({
          projectId: project.id,
          host,
          deliveryId: read.deliveryId,
          event: read.event(repository),
        });
        await options.onRecorded?.(result);
        return answer({
          outcome: result.duplicate ? 'duplicate' : 'recorded',
          duplicate: result.duplicate,
          eventId: result.event.id,
          reason: null,
        });
      },
    );
  }
};
