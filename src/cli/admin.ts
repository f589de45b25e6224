// grants-admin: subscriptions and API keys, on the same DATA_DIR as the API. Each group of
// commands has its module in admin/; this file holds the help and runs a command line.
import { alertCommands } from './admin/alertCommands.js';
import { auditCommands } from './admin/auditCommands.js';
import { databaseCommands } from './admin/databaseCommands.js';
import { keyCommands } from './admin/keyCommands.js';
import { secretsCommands } from './admin/secretsCommands.js';
import { EXIT, Session } from './admin/session.js';
import { subscriptionCommands } from './admin/subscriptionCommands.js';
import { runCli, stdio, type Io } from './runner.js';

export type { Io } from './runner.js';

const HELP =
  'Usage: grants-admin <command> [options]     (DATABASE_URL, else DATA_DIR or --data-dir, selects the database)' +
  `

Subscriptions:
  subscription create --name NAME --tier STARTER|PROFESSIONAL|ENTERPRISE
                      [--monthly-limit N] [--rate-limit N] [--json]
                                  create a subscription and its first key (printed once)
  subscription list [--json]
  subscription show ID [--json]   details, keys and this month's billable calls
  subscription set-status ID ACTIVE|SUSPENDED|CANCELLED
  subscription set-limits ID [--monthly-limit N|default] [--rate-limit N|default]
  subscription set-feature ID grants.search|grants.read|grants.export|subscription.read|alerts.manage on|off

Keys:
  key create SUBSCRIPTION_ID [--name NAME] [--scopes S,S] [--origins O,O] [--ips CIDR,CIDR]
             [--expires ISO|Nd|Nh] [--rate-limit N] [--json]
                                        a new key for the subscription (printed once), with
                                        the restrictions given (none: it can do everything)
  key list SUBSCRIPTION_ID [--json]     its keys and restrictions; EXPIRES SOON / EXPIRED flags
  key rotate KEY_ID [--grace SECONDS] [--json]
                                        a new key, and the old one revoked (after SECONDS)
  key revoke KEY_ID [--force]           takes effect on the next request; --force to revoke
                                        a subscription's last active key

Alerts:
  alerts list [--subscription ID] [--json]
  alerts show ID [--json]               the alert and its latest deliveries
  alerts pause ID                       holds its deliveries until the partner resumes it

Audit:
  audit [--subscription ID] [--since ISO|Nd|Nh] [--limit N] [--json]
                                        every change to subscriptions and keys, oldest first:
                                        when, who (a key id, admin or system), what, from where

Secrets:
  secrets rotate                        re-seals the webhook signing secrets under a new key

Database:
  migrate                               applies the schema migrations not applied yet (the API
                                        also runs them at start-up) and prints the version
  migrate-from-sqlite --data-dir DIR    copies DIR/subscriptions.sqlite (subscriptions, keys,
                                        monthly records, usage, audit log) into the empty
                                        PostgreSQL database of DATABASE_URL, in one transaction

Tier and status words may be written in any case. Every command takes --data-dir DIR and
--help. Only "subscription create" and "migrate" create the SQLite database (and DATA_DIR) when
it is missing; every other command needs it. With DATABASE_URL set, every command works on that
PostgreSQL database instead.

Exit codes: 0 done; 1 unknown subscription or key, or no database; 2 bad usage or value;
3 the command failed (the database cannot be read or written, or migrate-from-sqlite's target
is not empty). Changes take effect on a running API at its next request.`;

const commands = (session: Session, io: Io) => [
  ...subscriptionCommands(session, io),
  ...keyCommands(session, io),
  ...alertCommands(session, io),
  ...auditCommands(session, io),
  ...secretsCommands(session, io),
  ...databaseCommands(session, io),
];

export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = stdio): Promise<number> {
  const session = new Session(env);
  try {
    return await runCli(
      { program: 'grants-admin', help: HELP, exits: EXIT, commands: commands(session, io) },
      argv,
      io,
    );
  } finally {
    await session.close();
  }
}
