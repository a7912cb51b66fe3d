/**
 * Why a queued job waits. A worker that is full (every slot it can hold is taken) tells the jobs it
 * leaves in the queue, with one `phase` event `{ phase: 'queued', reason, message }` each, so a
 * client sees that its job waits for capacity rather than that something broke. A job gets the note
 * once while it waits (its latest event is the note already), and again if it comes back to the queue.
 */
import type { PhaseReason } from '../../domain/events.js';
import type { Db } from '../db.js';
import { eventAppender } from '../events.js';

export function waitingQueries(db: Db) {
  const appendEvent = eventAppender(db);
  /** Queued jobs, ready to run, with their latest event (oldest jobs first). */
  const waiting = (limit: number) =>
    db
      .read()
      .selectFrom('jobs as j')
      .leftJoin('job_events as e', (join) =>
        join.onRef('e.job_id', '=', 'j.id').onRef('e.seq', '=', 'j.event_seq'),
      )
      .select(['j.id', 'e.type', 'e.data'])
      .where('j.status', '=', 'active')
      .where('j.phase', '=', 'queued')
      .where('j.available_at', '<=', new Date().toISOString())
      .orderBy('j.id')
      .limit(limit)
      .execute();
  return {
    /** Notes `reason` on up to `limit` waiting jobs that do not carry it yet; returns how many. */
    async noteWaiting(reason: PhaseReason, message: string, limit = 500): Promise<number> {
      const unnoted = (rows: { id: string; type: string | null; data: string | null }[]) =>
        rows
          .filter((row) => !(row.type === 'phase' && JSON.parse(row.data ?? '{}').reason === reason))
          .map((row) => row.id);
      // Mostly there is nothing to note: a read finds that out without a write.
      const candidates = unnoted(await waiting(limit));
      if (candidates.length === 0) return 0;
      return db.write(async (trx) => {
        // Still queued and still without the note, now that writes are ours.
        const rows = await trx
          .selectFrom('jobs as j')
          .leftJoin('job_events as e', (join) =>
            join.onRef('e.job_id', '=', 'j.id').onRef('e.seq', '=', 'j.event_seq'),
          )
          .select(['j.id', 'e.type', 'e.data'])
          .where('j.id', 'in', candidates)
          .where('j.status', '=', 'active')
          .where('j.phase', '=', 'queued')
          .execute();
        const ids = unnoted(rows);
        const at = new Date().toISOString();
        for (const id of ids) await appendEvent(trx, id, 'phase', { phase: 'queued', reason, message }, at);
        return ids.length;
      });
    },
  };
}
