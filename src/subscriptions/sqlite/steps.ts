// The SQLite driver of the shared operations (../sqlSteps.ts): each statement prepared once and
// run synchronously, so an operation answers without a promise; a write transaction is BEGIN
// IMMEDIATE (the write lock taken before the first read).
import type Database from 'better-sqlite3';
import {
  driveSync,
  type Dialect,
  type Step,
  type StepRunner,
  type Steps,
  type TransactionOptions,
} from '../sqlSteps.js';
import type { Db } from './database.js';

const SQLITE_DIALECT: Dialect = {
  forUpdate: () => '',
  dayText: (column) => column,
  dayParam: '?',
  textParam: '?',
  nullSafeEquals: 'IS',
};

export class SqliteSteps implements StepRunner {
  readonly dialect = SQLITE_DIALECT;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly execute = (step: Step): unknown => {
    let statement = this.statements.get(step.sql);
    if (statement === undefined) {
      statement = this.db.prepare(step.sql);
      this.statements.set(step.sql, statement);
    }
    if (step.mode === 'run') return statement.run(...step.params).changes;
    return step.mode === 'get' ? statement.get(...step.params) : statement.all(...step.params);
  };

  constructor(private readonly db: Db) {}

  run<T>(steps: Steps<T>): T {
    return driveSync(steps, this.execute);
  }

  transaction<T>(steps: Steps<T>, options: TransactionOptions = {}): T {
    const work = this.db.transaction(() => driveSync(steps, this.execute));
    return options.write === true || options.exclusive !== undefined ? work.immediate() : work();
  }
}
