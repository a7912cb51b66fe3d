// A scratch PostgreSQL database for one benchmark run, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Creates a database of its own next to `adminUrl`'s; resolves with its URL and a `drop`, or with
 * null when PostgreSQL does not answer there.
 */
export async function scratchDatabase(adminUrl) {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `agentjobs_bench_${randomBytes(5).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
