import pg from 'pg';
import { assertChannel, callListener, type NotificationListener, type Unlisten } from '../notify.js';

/**
 * One dedicated PostgreSQL connection that LISTENs for every subscribed channel (a pooled
 * connection cannot: it goes back to the pool). Opened by the first `listen`, reconnected after a
 * loss while anyone listens, closed by `close`.
 */
export class PostgresListener {
  readonly #connectionString: string;
  readonly #listeners = new Map<string, Set<NotificationListener>>();
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(connectionString: string) {
    this.#connectionString = connectionString;
  }

  /** Resolves once the server acknowledged the LISTEN; rejects (registering nothing) when it cannot connect. */
  async listen(channel: string, listener: NotificationListener): Promise<Unlisten> {
    assertChannel(channel);
    if (this.#closed) throw new Error('The database is closed.');
    const client = await this.#connect();
    let set = this.#listeners.get(channel);
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
      await client.query(`LISTEN "${channel}"`);
    }
    set.add(listener);
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      const current = this.#listeners.get(channel);
      current?.delete(listener);
      if (current && current.size === 0) {
        this.#listeners.delete(channel);
        await this.#client?.query(`UNLISTEN "${channel}"`).catch(() => {});
      }
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#listeners.clear();
    const client = this.#client ?? (await this.#connecting?.catch(() => null));
    this.#client = null;
    await client?.end().catch(() => {});
  }

  #connect(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    if (this.#connecting) return this.#connecting;
    this.#connecting = (async () => {
      const client = new pg.Client({
        connectionString: this.#connectionString,
        connectionTimeoutMillis: 5000,
      });
      client.on('notification', (message) => {
        for (const listener of this.#listeners.get(message.channel) ?? [])
          callListener(listener, message.payload ?? '');
      });
      client.on('error', () => this.#lost(client));
      client.on('end', () => this.#lost(client));
      try {
        await client.connect();
        for (const channel of this.#listeners.keys()) await client.query(`LISTEN "${channel}"`);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      if (this.#closed) {
        await client.end().catch(() => {});
        throw new Error('The database is closed.');
      }
      this.#client = client;
      return client;
    })().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  /** The connection dropped: while anyone listens, reconnect, and wake everyone for what they missed. */
  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    void client.end().catch(() => {});
    this.#scheduleReconnect(1000);
  }

  #scheduleReconnect(delayMs: number): void {
    if (this.#closed || this.#listeners.size === 0 || this.#reconnectTimer) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      if (this.#closed || this.#listeners.size === 0) return;
      this.#connect().then(
        () => {
          for (const set of this.#listeners.values()) for (const listener of set) callListener(listener, '');
        },
        // Capped low: streams and workers wait on this to hear of changes once the database is back.
        () => this.#scheduleReconnect(Math.min(delayMs * 2, 5000)),
      );
    }, delayMs);
    this.#reconnectTimer.unref();
  }
}
