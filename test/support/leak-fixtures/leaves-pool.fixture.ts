import pg from 'pg';
import { inject, it } from 'vitest';

it.runIf(inject('postgresUrl'))('opens a PostgreSQL pool and never ends it', async () => {
  const pool = new pg.Pool({ connectionString: inject('postgresUrl') ?? '' });
  await pool.query('select 1');
});
