/**
 * The deliverer: claims due deliveries from the outbox and sends them, in every process that runs
 * one (`serve`, `api`, `worker`); the claim makes sure that two processes never send the same
 * attempt. Woken by the outbox's notification (LISTEN/NOTIFY on PostgreSQL, in-process on SQLite),
 * by a send that frees a slot, and by a timer set to the next retry, with a slow poll besides in
 * case a notification was missed.
 */
import { randomBytes } from 'node:crypto';
import type { WebhookConfig } from '../config.js';
import type { Logger } from '../log.js';
import { WEBHOOKS_CHANNEL } from '../store/channels.js';
import type { Unlisten } from '../store/notify.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import type { ClaimedDelivery } from '../store/webhooks/index.js';
import type { Resolve } from '../webhooks/address.js';
import { sendWebhook } from '../webhooks/send.js';
import { signatureHeaders } from '../webhooks/sign.js';

/**
 * Beyond the send's own deadline, so that a live deliverer records its attempt before its claim
 * runs out; short, since a deliverer that died holds its deliveries until then.
 */
const LEASE_MARGIN_MS = 10_000;

/** How long the delivery log keeps a finished delivery and its event; pending ones stay. */
export const DELIVERY_LOG_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** How often a deliverer prunes the log; every process may, the deletes do not conflict. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

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

export interface Deliverer {
  readonly id: string;
  start(): Promise<void>;
  /** Stops claiming and waits for the sends in flight (each ends within the timeout). */
  stop(): Promise<void>;
}

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { store, logger, config } = options;
  const id = `deliverer-${randomBytes(6).toString('hex')}`;
  const inFlight = new Set<Promise<void>>();
  let stopped = true;
  let loop: Promise<void> | null = null;
  let unlisten: Unlisten | null = null;
  let wake: (() => void) | null = null;
  let woken = false;
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

  const poke = () => {
    woken = true;
    wake?.();
  };

  const deliver = async (claim: ClaimedDelivery) => {
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
  };

  const track = (claim: ClaimedDelivery) => {
    const running = deliver(claim)
      .catch((error: unknown) => {
        // The claim's lease runs out and another attempt follows: the event is not lost.
        logger.warn({ err: error, deliveryId: claim.id }, 'webhook attempt could not be recorded');
      })
      .finally(() => {
        inFlight.delete(running);
        poke();
      });
    inFlight.add(running);
  };

  /** Sleeps until poked, or until the next delivery is due (at most `pollMs`). */
  const sleep = async () => {
    let waitMs = options.pollMs;
    try {
      const due = await store.webhooks.nextDueAt();
      if (due) waitMs = Math.max(0, Math.min(waitMs, Date.parse(due) - Date.now() + 5));
    } catch {
      // The database is away; poll.
    }
    if (woken || stopped) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
  };

  const run = async () => {
    while (!stopped) {
      woken = false;
      await prune();
      const free = config.concurrency - inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const claims = await store.webhooks.claim({
            owner: id,
            limit: free,
            leaseMs: config.timeoutMs + LEASE_MARGIN_MS,
          });
          for (const claim of claims) track(claim);
          claimed = claims.length;
        } catch (error) {
          logger.warn({ err: error }, 'could not claim webhook deliveries; trying again');
        }
      }
      // A full batch may mean more are due; otherwise wait for news.
      if (claimed > 0 && claimed === free) continue;
      if (!stopped && !woken) await sleep();
    }
  };

  return {
    id,
    async start() {
      if (!stopped) return;
      stopped = false;
      try {
        unlisten = await store.db.listen(WEBHOOKS_CHANNEL, poke);
      } catch (error) {
        logger.warn({ err: error }, 'webhook notifications unavailable; polling instead');
      }
      loop = run();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      poke();
      await loop;
      await Promise.all([...inFlight]);
      await unlisten?.();
      unlisten = null;
    },
  };
}
