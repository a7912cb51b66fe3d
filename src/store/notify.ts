/**
 * Wake-ups between processes and inside one (docs/architecture.md#the-queue-and-its-fencing): PostgreSQL `LISTEN/NOTIFY` on one
 * dedicated connection (`postgres/listener.ts`), and an in-process event for SQLite
 * (`sqlite/bus.ts`). Notifications are hints ("something changed, look"), never data: a listener
 * may miss one across a reconnect, so every listener is also called once after a reconnect, and
 * workers poll slowly besides.
 */
export type NotificationListener = (payload: string) => void;
/** Stops a `listen`; resolves once the subscription is gone. Idempotent. */
export type Unlisten = () => Promise<void>;

/** Channel names become SQL identifiers, so they are restricted to a safe alphabet. */
export function assertChannel(channel: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`Invalid notification channel: ${channel}`);
}

/** Calls one listener; its failure is its own. */
export function callListener(listener: NotificationListener, payload: string): void {
  try {
    listener(payload);
  } catch {
    // A listener's failure is its own; the others still hear the notification.
  }
}
