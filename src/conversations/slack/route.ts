/**
 * `POST /v2/slack/events` (docs/slack.md#a-public-url): Slack's Events API, with no API key but
 * Slack's v0 signature over the raw body under the app's signing secret, at most 5 minutes old.
 * `url_verification` is answered with its challenge; an event is recorded, then answered 200 at
 * once (Slack wants an answer within 3 seconds; the work happens on the dispatcher). Without a
 * signing secret the endpoint answers 404: Slack is not set up here.
 */
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { parseJsonBytes } from '../../domain/json.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/store.js';
import { SlackPayloadError } from './events.js';
import { receiveEnvelope } from './receive.js';
import { verifySlackSignature } from './signature.js';

/** Slack's events are small; a body past this is no event of theirs. */
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface SlackRouteOptions {
  store: Store;
  logger: Logger;
  /** The app's signing secret, or null when Slack is not set up. */
  signingSecret: () => Promise<string | null>;
}

export const slackRoutes: FastifyPluginAsync<SlackRouteOptions> = async (app, options) => {
  // The raw bytes, for the signature; only in this plugin.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/json\s*(;|$)/i,
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.post(
    '/v2/slack/events',
    { bodyLimit: BODY_LIMIT_BYTES, schema: { hide: true } },
    async (request, reply) => {
      const secret = await options.signingSecret();
      if (!secret) throw new AppError('not_found', 'Slack is not set up on this server (docs/slack.md).');
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const verdict = verifySlackSignature(secret, request.headers, body);
      if (verdict !== 'valid') {
        request.log.warn({ verdict, retry: request.headers['x-slack-retry-num'] }, 'Slack request refused');
        throw new AppError(
          'unauthorized',
          verdict === 'stale'
            ? 'The Slack request timestamp is more than 5 minutes away from now.'
            : 'The Slack signature is missing or wrong for this app’s signing secret.',
        );
      }
      try {
        const receipt = await receiveEnvelope(options.store, options.logger, parseJsonBytes(body), 'http');
        if (receipt.outcome === 'url_verification')
          return reply.code(200).send({ challenge: receipt.challenge });
        return reply.code(200).send({ ok: true, outcome: receipt.outcome });
      } catch (error) {
        if (error instanceof SlackPayloadError) throw new AppError('invalid_request', error.message);
        throw error;
      }
    },
  );
};
