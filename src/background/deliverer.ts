/**
 * The deliverer: claims due deliveries from the outbox and sends them, in every process that runs
 * one (`serve`, `api`, `worker`); the claim makes sure that two processes never send the same
 * attempt. It runs on the background loop (`loop.ts`): woken by the outbox's notification, by a
 * send that frees a slot, and at the next retry's time, with the slow poll besides.
 */
import { randomBytes } from 'node:crypto';
import type { WebhookConfig } from '../config/config.js';
import type { Logger } from '../log.js';
import { WEBHOOKS_CHANNEL } from '../store/channels.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import type { ClaimedDelivery } from '../store/webhooks/index.js';
import type { Resolve } from '../webhooks/address.js';
import { sendWebhook } from '../webhooks/send.js';
import { signatureHeaders } from '../webhooks/sign.js';
import { type BackgroundLoop, backgroundLoop, type PassResult } from './loop.js';

/**
 * Beyond the send's own deadline, so that a live deliverer records its attempt before its claim
 * runs out; short, since a deliverer that died holds its deliveries until then.
 */
const LEASE_MARGIN_MS = 10_000;

/** How long the delivery log keeps a finished delivery and its event; pending ones stay. */
export const DELIVERY_LOG_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** How often a deliverer prunes the log; every process may, the deletes do not conflict. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** What a deliverer needs. */
export interface DelivererOptions {
  store: Store;
  logger: Logger;
  config: WebhookConfig;
  /** Opens the endpoints' sealed secrets. */
  secrets: () => SecretBox;
  /** The slow fallback poll. */
  pollMs: number;
  /** Tests resolve names their own way. */
  resolve?: Resolve;
  /** Counts each attempt by what came of it (`agentjobs_webhook_deliveries_total`). */
  onAttempt?: (outcome: string) => void;
}

/** The webhook deliverer of one process; it can be started again after a stop. */
export interface Deliverer {
  readonly id: string;
  start(): Promise<void>;
  /** Stops claiming and waits for the sends in flight (each ends within the timeout). */
  stop(): Promise<void>;
}

/** Signs and sends one claimed delivery, and records the attempt (fenced by its claim). */
async function deliver(options: DelivererOptions, claim: ClaimedDelivery): Promise<void> {
  const { store, logger, config } = options;
  const box = options.secrets();
  const at = new Date();
  const headers = signatureHeaders(
    claim.eventId,
    at,
    claim.payload,
    claim.sealedSecrets.map((sealed) => box.open(sealed, claim.endpointId)),
  );
  const result = await sendWebhook({
    url: claim.url,
    body: claim.payload,
    headers,
    timeoutMs: config.timeoutMs,
    allowPrivate: config.allowPrivate,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const recorded = await store.webhooks.recordAttempt(claim, result, config);
  options.onAttempt?.(recorded);
  const line = {
    deliveryId: claim.id,
    webhookId: claim.endpointId,
    eventId: claim.eventId,
    status: result.responseStatus,
    ms: result.durationMs,
    outcome: recorded,
  };
  if (result.ok) logger.debug(line, 'webhook delivered');
  else logger.info({ ...line, error: result.error }, 'webhook attempt failed');
}

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { store, logger, config } = options;
  const id = `deliverer-${randomBytes(6).toString('hex')}`;
  const inFlight = new Set<Promise<void>>();
  let loop: BackgroundLoop | null = null;
  let prunedAt = 0;

  /** Keeps the delivery log from growing forever: a busy project makes thousands a day. */
  const prune = async () => {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    try {
      const pruned = await store.webhooks.pruneDeliveries(new Date(prunedAt - DELIVERY_LOG_RETENTION_MS));
      if (pruned.deliveries + pruned.events > 0) logger.info(pruned, 'pruned the webhook delivery log');
    } catch (error) {
      logger.warn({ err: error }, 'could not prune the webhook delivery log; trying again later');
    }
  };

  const track = (claim: ClaimedDelivery) => {
    const running = deliver(options, claim)
      .catch((error: unknown) => {
        // The claim's lease runs out and another attempt follows: the event is not lost.
        logger.warn({ err: error, deliveryId: claim.id }, 'webhook attempt could not be recorded');
      })
      .finally(() => {
        inFlight.delete(running);
        void loop?.wake();
      });
    inFlight.add(running);
  };

  /** Claims up to the free slots; then, unless the batch was full, sleeps until the next is due. */
  const pass = async (): Promise<PassResult> => {
    await prune();
    const free = config.concurrency - inFlight.size;
    if (free > 0) {
      const claims = await store.webhooks.claim({
        owner: id,
        limit: free,
        leaseMs: config.timeoutMs + LEASE_MARGIN_MS,
      });
      for (const claim of claims) track(claim);
      // A full batch may mean more are due.
      if (claims.length > 0 && claims.length === free) return { more: true };
    }
    const due = await store.webhooks.nextDueAt();
    return due ? { nextInMs: Date.parse(due) - Date.now() + 5 } : {};
  };

  return {
    id,
    async start() {
      if (loop) return;
      loop = backgroundLoop({
        name: 'delivering webhooks',
        logger,
        pollMs: options.pollMs,
        listen: { db: store.db, channel: WEBHOOKS_CHANNEL },
        pass,
      });
      await loop.start();
    },
    async stop() {
      const current = loop;
      if (!current) return;
      loop = null;
      await current.stop();
      await Promise.all([...inFlight]);
    },
  };
}
