// The PostgreSQL driver of the shared operations (../sqlSteps.ts): the `?` placeholders rewritten
// to `$n` (once per statement text), one round trip per statement, a transaction on one pooled
// connection; the rows an operation reads to decide a write are locked with FOR UPDATE.
import {
  driveAsync,
  type Dialect,
  type Step,
  type StepRunner,
  type Steps,
  type TransactionOptions,
} from '../sqlSteps.js';
import { inTransaction, type Pool, type Queryable } from './database.js';

const PG_DIALECT: Dialect = {
  forUpdate: (of) => (of === undefined ? ' FOR UPDATE' : ` FOR UPDATE OF ${of}`),
  dayText: (column) => `to_char(${column}, 'YYYY-MM-DD')`,
  dayParam: '?::date',
  textParam: '?::text',
  nullSafeEquals: 'IS NOT DISTINCT FROM',
};

const numbered = new Map<string, string>();

/** `sql` with its `?` placeholders as `$1`, `$2`, … (no statement here holds a `?` in a literal). */
function numberedPlaceholders(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${(n += 1)}`);
    numbered.set(sql, text);
  }
  return text;
}

async function execute(db: Queryable, step: Step): Promise<unknown> {
  const result = await db.query(numberedPlaceholders(step.sql), step.params as unknown[]);
  if (step.mode === 'run') return result.rowCount ?? 0;
  return step.mode === 'get' ? result.rows[0] : result.rows;
}

export class PgSteps implements StepRunner {
  readonly dialect = PG_DIALECT;

  constructor(private readonly pool: Pool) {}

  run<T>(steps: Steps<T>, db: Queryable = this.pool): Promise<T> {
    return driveAsync(steps, (step) => execute(db, step));
  }

  /** In one transaction (the rows it locks, it locks with FOR UPDATE in its statements). */
  transaction<T>(steps: Steps<T>, options: TransactionOptions = {}): Promise<T> {
    return inTransaction(this.pool, async (db) => {
      if (options.exclusive !== undefined) await db.query('SELECT pg_advisory_xact_lock($1)', [options.exclusive]);
      return this.run(steps, db);
    });
  }
}
