/**
 * Everything a running service left behind, as texts to search for a secret: the logs and outputs
 * the test collected, every job and its events through the API, every row of every table, and every
 * file in the data directory (mirrors and their `.git/config`, the askpass script, the database).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { openDb } from '../../src/store/db.js';

export interface ServiceTraces {
  databaseUrl: string;
  dataDir: string;
  /** Texts already collected, each with where it came from. */
  texts: [string, string][];
  /** Answers a GET of `/v2/agent/{projectId}{pathname}` as text. */
  api(pathname: string): Promise<string>;
  jobs: string[];
}

/** `[where, text]` pairs; a test asserts the secret is in none of them. */
export async function haystacksOfService(traces: ServiceTraces): Promise<[string, string][]> {
  const haystacks: [string, string][] = [...traces.texts];
  for (const id of traces.jobs) {
    haystacks.push([`job ${id}`, await traces.api(`/job/${id}`)]);
    haystacks.push([`events of ${id}`, await traces.api(`/job/${id}/events`)]);
  }
  const db = openDb({ url: traces.databaseUrl });
  try {
    const tables = traces.databaseUrl.startsWith('postgres')
      ? await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
          db.kysely,
        )
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db.kysely);
    const names = tables.rows.map((table) => table.name);
    if (!names.includes('projects')) throw new Error(`no projects table among ${names.join(', ')}`);
    for (const name of names) {
      const rows = (await sql`select * from ${sql.table(name)}`.execute(db.kysely)).rows;
      haystacks.push([`table ${name}`, JSON.stringify(rows)]);
    }
    // The token is there, sealed: proof the search looks where it would be.
    const sealed = await sql<{
      host_token_encrypted: string | null;
    }>`select host_token_encrypted from projects`.execute(db.kysely);
    if (!sealed.rows.some((row) => row.host_token_encrypted?.startsWith('v1.')))
      throw new Error('no project holds a sealed token');
  } finally {
    await db.close();
  }
  const walk = (folder: string): string[] =>
    fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(folder, entry.name);
      return entry.isDirectory() ? walk(full) : [full];
    });
  for (const file of walk(traces.dataDir)) haystacks.push([file, fs.readFileSync(file).toString('latin1')]);
  return haystacks;
}
