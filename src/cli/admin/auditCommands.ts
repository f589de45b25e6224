// grants-admin audit: every change to subscriptions and keys, who made it and from where.
import { jsonForTerminal, terminal } from '../../terminalText.js';
import { UsageError, type Command, type Io } from '../runner.js';
import { instantArg, positiveInt } from './arguments.js';
import { EXIT, JSON_OPTIONS, usage, type Session } from './session.js';

/** grants-admin's audit command, on the stores of `session`, printing to `io`. */
export function auditCommands(session: Session, io: Io): Command[] {
  return [
    {
      name: 'audit',
      usage: usage(
        'audit [--subscription ID] [--since ISO|Nd|Nh] [--limit N] [--json]',
        `Every change to subscriptions and keys, oldest first (at most --limit, default 1000): when, who (the key
that made it through the API, admin for grants-admin, system for the server itself), what, on which
subscription and key or subscription, and from which address (the client's, or the host grants-admin ran on).
--since takes an ISO 8601 instant or a duration back from now (7d, 12h).`,
      ),
      options: { ...JSON_OPTIONS, subscription: 'string', since: 'string', limit: 'string' },
      run: async ({ values }) => {
        const since = instantArg('--since', values.since, -1);
        const limit = positiveInt('--limit', values.limit, 100_000, false) ?? 1000;
        if (values.subscription !== undefined && typeof values.subscription !== 'string')
          throw new UsageError('--subscription needs a subscription id');
        const { store } = await session.open(values, false);
        const entries = await store.audit({ subscriptionId: values.subscription as string | undefined, since, limit });
        if (values.json) io.out(jsonForTerminal(entries));
        else if (entries.length === 0) io.out('no audit entries');
        else {
          for (const e of entries) {
            io.out(
              terminal`${e.at}  ${e.actor.padEnd(12)} ${e.action.padEnd(25)} ${e.subscriptionId ?? '-'}  ` +
                terminal`${e.target}  from ${e.address ?? '-'}` +
                (e.details === null ? '' : `  ${jsonForTerminal(e.details)}`),
            );
          }
        }
        return EXIT.ok;
      },
    },
  ];
}
