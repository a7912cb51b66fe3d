/**
 * The deliverers' side of the outbox, shaped like the job queue's claim (store/queue/claim.ts): a
 * due delivery is claimed under a lease with `attempts` raised, by one process only (`skip locked`
 * where writes run side by side, the write lock where they run one at a time); the result is
 * recorded fenced by that attempt, so a deliverer whose lease ran out and was taken over records
 * nothing. A deliverer that dies mid-send leaves the lease to expire: the delivery is claimed again
 * (at least once, never lost).
 */
import { sql } from 'kysely';
import { retryDelayMs } from '../../domain/webhook.js';
import type { Db, Transaction } from '../db.js';

export interface ClaimOptions {
  owner: string;
  limit: number;
  /** Longer than a send can take (the timeout), so a live deliverer never loses its claim. */
  leaseMs: number;
}

/** A delivery this process now holds, with all it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  /** The claim number that fences the result. */
  attempt: number;
  owner: string;
  /** The `webhook-id`. */
  eventId: string;
  /** The body, byte for byte. */
  payload: string;
  endpointId: string;
  projectId: string;
  url: string;
  /** Sealed secrets to sign with: the current one, and the previous one while it overlaps. */
  sealedSecrets: string[];
}

/** What an attempt came to. */
export interface AttemptResult {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface RetryPolicy {
  /** The waits before each retry; after the last, the delivery fails. */
  retryDelaysMs: readonly number[];
  /** An endpoint failing every attempt for this long is disabled. */
  disableAfterMs: number;
}

/** `5 days`, `2 hours`, `30 seconds`: for messages. */
function describeSpan(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    if (ms >= size) {
      const count = Math.round(ms / size);
      return `${count} ${name}${count === 1 ? '' : 's'}`;
    }
  }
  return `${Math.round(ms / 1000)} seconds`;
}

export type RecordedAs = 'succeeded' | 'retrying' | 'failed' | 'lost';

/** Deliveries that may be claimed: pending, due, not held, to an enabled endpoint. */
const enabledEndpoints = sql<string>`(select e.id from webhook_endpoints e where e.enabled = 1 and e.secret_sealed is not null)`;

export function deliveryClaimQueries(db: Db) {
  return {
    claim: (options: ClaimOptions): Promise<ClaimedDelivery[]> => claimDue(db, options),

    /**
     * Records an attempt of a claimed delivery and what follows: success ends it; a failure waits
     * for the next retry of the schedule, or fails the delivery when the schedule is spent. The
     * endpoint learns it too: a success clears its failing streak, a failure starts one, and a
     * streak of `disableAfterMs` disables it. `lost` when the claim no longer holds.
     */
    recordAttempt: (
      claim: ClaimedDelivery,
      result: AttemptResult,
      policy: RetryPolicy,
    ): Promise<RecordedAs> => recordAttempt(db, claim, result, policy),

    /**
     * When the next delivery may become claimable (its retry time, or the end of the lease it is
     * held under), or null when nothing is pending. Deliverers sleep until then.
     */
    nextDueAt: (): Promise<string | null> => nextDueAt(db),
  };
}

async function claimDue(db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const now = new Date();
  const at = now.toISOString();
  return db.write(async (trx) => {
    const due = await db
      .lockForUpdate(
        trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', at)
          .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
          .where(sql<boolean>`endpoint_id in ${enabledEndpoints}`)
          .orderBy('next_attempt_at')
          .limit(options.limit),
        { skipLocked: true },
      )
      .execute();
    if (due.length === 0) return [];
    const ids = due.map((row) => row.id);
    await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: sql<number>`attempts + 1`,
        lease_owner: options.owner,
        lease_expires_at: new Date(now.getTime() + options.leaseMs).toISOString(),
        updated_at: at,
      })
      .where('id', 'in', ids)
      .execute();
    return claimedDeliveries(trx, ids, options.owner, at);
  });
}

/** The deliveries just claimed, with their event's body and their endpoint's secrets. */
async function claimedDeliveries(
  trx: Transaction,
  ids: string[],
  owner: string,
  at: string,
): Promise<ClaimedDelivery[]> {
  const rows = await trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.attempts',
      'v.id as event_id',
      'v.payload',
      'e.id as endpoint_id',
      'e.project_id',
      'e.url',
      'e.secret_sealed',
      'e.previous_secret_sealed',
      'e.previous_secret_expires_at',
    ])
    .where('d.id', 'in', ids)
    .orderBy('d.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    attempt: Number(row.attempts),
    owner,
    eventId: row.event_id,
    payload: row.payload,
    endpointId: row.endpoint_id,
    projectId: row.project_id,
    url: row.url,
    sealedSecrets: [
      row.secret_sealed ?? '',
      ...(row.previous_secret_sealed && (row.previous_secret_expires_at ?? '') > at
        ? [row.previous_secret_sealed]
        : []),
    ].filter(Boolean),
  }));
}

async function recordAttempt(
  db: Db,
  claim: ClaimedDelivery,
  result: AttemptResult,
  policy: RetryPolicy,
): Promise<RecordedAs> {
  const now = new Date();
  return db.write(async (trx) => {
    const held = await db
      .lockForUpdate(
        trx
          .selectFrom('webhook_deliveries')
          .select(['id', 'failures', 'endpoint_id'])
          .where('id', '=', claim.id)
          .where('attempts', '=', claim.attempt)
          .where('lease_owner', '=', claim.owner),
      )
      .executeTakeFirst();
    if (!held) return 'lost';
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: claim.id,
        attempt: claim.attempt,
        at: new Date(now.getTime() - result.durationMs).toISOString(),
        response_status: result.responseStatus,
        duration_ms: Math.round(result.durationMs),
        error: result.error,
        response_excerpt: result.responseExcerpt,
      })
      .execute();
    const attempt = {
      deliveryId: claim.id,
      endpointId: held.endpoint_id,
      failures: Number(held.failures),
      now,
    };
    if (result.ok) {
      await recordSuccess(trx, attempt);
      return 'succeeded';
    }
    return recordFailure(trx, attempt, policy);
  });
}

/** The held delivery an attempt was of, and when it was recorded. */
interface HeldAttempt {
  deliveryId: string;
  endpointId: string;
  failures: number;
  now: Date;
}

const unleased = (at: string) => ({ lease_owner: null, lease_expires_at: null, updated_at: at });

/** The delivery succeeded: it is done, and its endpoint's failing streak (if any) ends. */
async function recordSuccess(trx: Transaction, attempt: HeldAttempt): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ ...unleased(attempt.now.toISOString()), status: 'succeeded', next_attempt_at: null })
    .where('id', '=', attempt.deliveryId)
    .execute();
  await trx
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', attempt.endpointId)
    .where('failing_since', 'is not', null)
    .execute();
}

/**
 * The attempt failed: the delivery waits for its next retry or fails; its endpoint starts a failing
 * streak, and is disabled when the streak has lasted `disableAfterMs`.
 */
async function recordFailure(
  trx: Transaction,
  attempt: HeldAttempt,
  policy: RetryPolicy,
): Promise<'retrying' | 'failed'> {
  const { now } = attempt;
  const at = now.toISOString();
  const failures = attempt.failures + 1;
  const wait = retryDelayMs(policy.retryDelaysMs, failures, Math.random());
  await trx
    .updateTable('webhook_deliveries')
    .set({
      ...unleased(at),
      failures,
      status: wait === null ? 'failed' : 'pending',
      next_attempt_at: wait === null ? null : new Date(now.getTime() + wait).toISOString(),
    })
    .where('id', '=', attempt.deliveryId)
    .execute();
  await trx
    .updateTable('webhook_endpoints')
    .set({ failing_since: at })
    .where('id', '=', attempt.endpointId)
    .where('failing_since', 'is', null)
    .execute();
  const since = new Date(now.getTime() - policy.disableAfterMs).toISOString();
  await trx
    .updateTable('webhook_endpoints')
    .set({
      enabled: 0,
      disabled_reason: `Disabled automatically: every delivery attempt failed for ${describeSpan(policy.disableAfterMs)}. Fix the receiver, then enable the endpoint again.`,
      updated_at: at,
    })
    .where('id', '=', attempt.endpointId)
    .where('enabled', '=', 1)
    .where('failing_since', '<=', since)
    .execute();
  return wait === null ? 'failed' : 'retrying';
}

async function nextDueAt(db: Db): Promise<string | null> {
  const row = await db
    .read()
    .selectFrom('webhook_deliveries')
    .select(
      sql<
        string | null
      >`min(case when lease_expires_at > next_attempt_at then lease_expires_at else next_attempt_at end)`.as(
        'due',
      ),
    )
    .where('status', '=', 'pending')
    .where(sql<boolean>`endpoint_id in ${enabledEndpoints}`)
    .executeTakeFirst();
  return row?.due ?? null;
}
