/**
 * The SQLite library of this process, behind the little the service needs of it: what Kysely's
 * SQLite dialect calls, plus `exec` and `inTransaction`.
 *
 * On Node.js 24 and later it is Node's own `node:sqlite`; before, better-sqlite3. better-sqlite3
 * up to 12 builds its objects on `node::ObjectWrap`, and since Node 24.19 that class's destructor
 * aborts the whole process when V8 collects a garbage statement outside JavaScript (an idle GC):
 * the service died under its first burst of requests (nodejs/node#65446). better-sqlite3 13 fixes
 * it but no longer runs on Node 20, which we still support. Each library is loaded only where it
 * is used, so the other's native code never runs.
 */
import { createRequire } from 'node:module';

export interface SqliteStatement {
  /** Whether it returns rows. */
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  /** Runs statements that return nothing (pragmas, `begin`). */
  exec(sql: string): void;
  close(): void;
  readonly inTransaction: boolean;
}

const BUSY_TIMEOUT_MS = 10_000;

// What the service uses of `node:sqlite` (Node 22.5+; not in the Node 20 type definitions).
type Value = null | number | bigint | string | Uint8Array;
interface StatementSync {
  columns(): { name: string }[];
  all(...parameters: Value[]): unknown[];
  run(...parameters: Value[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: Value[]): IterableIterator<unknown>;
}
interface DatabaseSync {
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction: boolean;
}
interface NodeSqlite {
  DatabaseSync: new (file: string, options: { readOnly: boolean; timeout: number }) => DatabaseSync;
}

/** `node:sqlite` on Node 24 and later, else better-sqlite3. */
export const SQLITE_LIBRARY: 'node:sqlite' | 'better-sqlite3' =
  Number(process.versions.node.split('.')[0]) >= 24 ? 'node:sqlite' : 'better-sqlite3';

const load = createRequire(import.meta.url);

/** Opens `file` (or `:memory:`) with a busy timeout, read-only when asked. */
export function openSqliteFile(file: string, options: { readonly?: boolean } = {}): SqliteConnection {
  const readonly = options.readonly ?? false;
  if (SQLITE_LIBRARY === 'better-sqlite3') {
    const BetterSqlite = load('better-sqlite3') as typeof import('better-sqlite3');
    return new BetterSqliteConnection(new BetterSqlite(file, { readonly, timeout: BUSY_TIMEOUT_MS }));
  }
  const { DatabaseSync } = load('node:sqlite') as NodeSqlite;
  return new NodeSqliteConnection(new DatabaseSync(file, { readOnly: readonly, timeout: BUSY_TIMEOUT_MS }));
}

class BetterSqliteConnection implements SqliteConnection {
  constructor(private readonly database: import('better-sqlite3').Database) {}
  prepare(sql: string): SqliteStatement {
    // Its statements take an array of parameters as they are, and say whether they read.
    return this.database.prepare(sql) as unknown as SqliteStatement;
  }
  exec(sql: string): void {
    this.database.exec(sql);
  }
  close(): void {
    this.database.close();
  }
  get inTransaction(): boolean {
    return this.database.inTransaction;
  }
}

class NodeSqliteConnection implements SqliteConnection {
  constructor(private readonly database: DatabaseSync) {}
  prepare(sql: string): SqliteStatement {
    return translated(() => new NodeSqliteStatement(this.database.prepare(sql)));
  }
  exec(sql: string): void {
    translated(() => this.database.exec(sql));
  }
  close(): void {
    this.database.close();
  }
  get inTransaction(): boolean {
    return this.database.isTransaction;
  }
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  constructor(private readonly statement: StatementSync) {
    this.reader = statement.columns().length > 0;
  }
  all(parameters: readonly unknown[]): unknown[] {
    return translated(() => this.statement.all(...(parameters as Value[])));
  }
  run(parameters: readonly unknown[]) {
    return translated(() => this.statement.run(...(parameters as Value[])));
  }
  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    return translated(() => this.statement.iterate(...(parameters as Value[])));
  }
}

/**
 * SQLite's result codes by name, for the ones the service tells apart; `node:sqlite` gives the
 * number (`errcode`, extended), better-sqlite3 the name (`code`), and callers look at the name.
 */
const RESULT_CODES: Record<number, string> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  13: 'SQLITE_FULL',
  19: 'SQLITE_CONSTRAINT',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
};

function translated<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const { errcode } = error as { errcode?: unknown };
    if (typeof errcode === 'number') {
      (error as { code: string }).code =
        RESULT_CODES[errcode] ?? RESULT_CODES[errcode & 0xff] ?? `SQLITE_ERROR_${errcode}`;
    }
    throw error;
  }
}
