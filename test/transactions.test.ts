import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../src/domain/project.js';
import type { Db, Transaction } from '../src/store/db.js';
import { makeTestJob, testDialects, useTestStore } from './support/db.js';

// Misuse of a write must fail loudly and at once, the same on every database: before, a nested
// write or the root handle inside a write hung on SQLite and ran outside the transaction on
// PostgreSQL.
describe.each(testDialects())('transactions on %s', (dialect) => {
  const t = useTestStore(dialect);
  let db: Db;
  let project: Project;

  beforeAll(async () => {
    db = t.db;
    project = await t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
  });

  const newJob = (prompt: string) => makeTestJob(t.store, project, prompt);

  it('refuses a write started inside a write, at once, and rolls the outer one back', async () => {
    const job = await newJob('outer');
    const outer = db.write(async (trx) => {
      await trx.updateTable('jobs').set({ title: 'changed' }).where('id', '=', job.id).execute();
      await db.write(async (inner) => inner.selectFrom('jobs').select('id').execute());
    });
    await expect(outer).rejects.toThrow(/A write was started inside a write/);
    expect((await t.store.jobs.get(project.id, job.id))?.title).toBeNull();
  });

  it('refuses a store method that writes, called inside a write', async () => {
    const job = await newJob('store inside');
    await expect(
      db.write(async () => {
        await t.store.jobs.archive(project.id, job.id);
      }),
    ).rejects.toThrow(/inside a write/);
    expect((await t.store.jobs.get(project.id, job.id))?.status).toBe('active');
  });

  it('refuses the root handle inside a write, at once', async () => {
    const job = await newJob('root inside');
    await expect(
      db.write(async () => {
        await db.kysely.updateTable('jobs').set({ title: 'outside' }).where('id', '=', job.id).execute();
      }),
    ).rejects.toThrow(/The root database handle was used inside a write/);
    await expect(db.write(async () => sql`select 1`.execute(db.kysely))).rejects.toThrow(
      /root database handle/,
    );
    expect((await t.store.jobs.get(project.id, job.id))?.title).toBeNull();
  });

  it('still allows the root handle and writes once the write is over', async () => {
    await db.write(async (trx) => trx.selectFrom('projects').select('id').execute());
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db.kysely);
    expect(rows.map((row) => Number(row.one))).toEqual([1]);
    await expect(
      db.write(async (trx) => trx.selectFrom('projects').select('id').execute()),
    ).resolves.toBeInstanceOf(Array);
  });

  it("reads inside a write see the write's own changes, and others see them after its commit", async () => {
    const job = await newJob('read your own write');
    const seen = await db.write(async (trx) => {
      await trx.updateTable('jobs').set({ title: 'mine' }).where('id', '=', job.id).execute();
      const direct = await db
        .read()
        .selectFrom('jobs')
        .select('title')
        .where('id', '=', job.id)
        .executeTakeFirst();
      // The store's own reads, which go through `Db.read`.
      const viaStore = await t.store.jobs.get(project.id, job.id);
      const listed = await t.store.jobs.list(project.id, { limit: 50 });
      return {
        direct: direct?.title,
        viaStore: viaStore?.title,
        listed: listed.jobs.find((j) => j.id === job.id)?.title,
      };
    });
    expect(seen).toEqual({ direct: 'mine', viaStore: 'mine', listed: 'mine' });
    expect((await t.store.jobs.get(project.id, job.id))?.title).toBe('mine');
  });

  it('reads inside a write that rolls back leave nothing behind', async () => {
    const job = await newJob('rolled back');
    await expect(
      db.write(async (trx) => {
        await trx.updateTable('jobs').set({ title: 'gone' }).where('id', '=', job.id).execute();
        expect((await t.store.jobs.get(project.id, job.id))?.title).toBe('gone');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await t.store.jobs.get(project.id, job.id))?.title).toBeNull();
  });

  it('gives the callback a Transaction the type checker tells from the root handle', () => {
    // Checked by `tsc --noEmit`; never called.
    const misuse = () => {
      const takesTransaction = (_trx: Transaction) => {};
      const takesRoot = (_root: Db['kysely']) => {};
      // @ts-expect-error the root handle is not a transaction
      takesTransaction(db.kysely);
      return db.write(async (trx) => {
        // @ts-expect-error a transaction is not the root handle
        takesRoot(trx);
      });
    };
    expect(misuse).toBeTypeOf('function');
  });
});
