// grants-admin migrate, migrate-from-sqlite: the schema of the database, and a copy of an
// embedded deployment's subscriptions into PostgreSQL.
import {
  migrateSqliteToPostgres,
  NoSqliteDatabaseError,
  TargetNotEmptyError,
  type CopyCounts,
} from '../../subscriptions/sqliteToPostgres.js';
import { jsonForTerminal } from '../../terminalText.js';
import { CliExit, noDatabase, UsageError, type Command, type Io } from '../runner.js';
import { COMMON, EXIT, usage, type Session } from './session.js';

/** grants-admin's database commands, on the stores of `session`, printing to `io`. */
export function databaseCommands(session: Session, io: Io): Command[] {
  return [
    {
      name: 'migrate',
      usage: usage(
        'migrate',
        'Applies the schema migrations not applied yet to the database (DATABASE_URL, else the SQLite file ' +
          'in\nDATA_DIR, created when missing) and prints the schema version. The API runs them at start-up too.',
      ),
      options: COMMON,
      run: async ({ values }) => {
        const { opened } = await session.open(values, true);
        io.out(`${opened.kind} store at schema version ${await opened.schemaVersion()}`);
        return EXIT.ok;
      },
    },
    {
      name: 'migrate-from-sqlite',
      usage: usage(
        'migrate-from-sqlite',
        "Copies an embedded deployment's subscriptions database (DIR/subscriptions.sqlite: subscriptions, keys\n" +
          ('(hashed, with their restrictions), monthly records, the usage log, the per-day counts and the ' +
            'audit log)\ninto the PostgreSQL database of ') +
          'DATABASE_URL, in one transaction. The target must hold no subscription and no monthly record: run it\n' +
          'once, before pointing the API at PostgreSQL; a second run copies nothing and says why.',
      ),
      options: { ...COMMON, json: 'boolean' },
      run: async ({ values }) => {
        const config = session.config(values);
        if (config.databaseUrl === null)
          throw new UsageError('migrate-from-sqlite needs DATABASE_URL (the PostgreSQL database to copy into)');
        let copied: CopyCounts;
        try {
          copied = await migrateSqliteToPostgres(config.dataDir, config.databaseUrl);
        } catch (error) {
          if (error instanceof NoSqliteDatabaseError) throw new CliExit(noDatabase(error.file), EXIT.notFound);
          if (error instanceof TargetNotEmptyError) throw new CliExit(error.message, EXIT.failed);
          throw error;
        }
        if (values.json) io.out(jsonForTerminal(copied));
        else {
          io.out(
            `copied ${copied.subscriptions} subscription(s), ${copied.apiKeys} key(s), ` +
              `${copied.monthlyRecords} monthly record(s), ` +
              (`${copied.usageRows} usage row(s), ${copied.dailyRows} per-day count(s) and ` +
                `${copied.auditRows} audit entr${copied.auditRows === 1 ? 'y' : 'ies'} into PostgreSQL`),
          );
        }
        return EXIT.ok;
      },
    },
  ];
}
