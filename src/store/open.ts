import type { Config } from '../config/config.js';
import { openDb } from './db.js';
import { migrate } from './migrate.js';
import { createStore, type Store } from './store.js';

/** Opens the database and brings its schema up to date. */
export async function openStore(config: Pick<Config, 'databaseUrl'>): Promise<Store> {
  const db = openDb({ url: config.databaseUrl });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return createStore(db);
}
