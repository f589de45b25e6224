// grants-admin alerts …: what an operator needs to see and stop of the partners' alerts.
import type { Alert } from '../../alerts/model.js';
import type { AlertStore } from '../../alerts/store.js';
import { jsonForTerminal, terminal } from '../../terminalText.js';
import { CliExit, type Command, type Io, type ParsedArgs } from '../runner.js';
import { COMMON, EXIT, JSON_OPTIONS, usage, type Session } from './session.js';

/** grants-admin's alerts commands, on the stores of `session`, printing to `io`. */
export function alertCommands(session: Session, io: Io): Command[] {
  const open = async (values: ParsedArgs['values']) => (await session.openAlerts(values)).store;
  const line = (a: Alert) =>
    terminal`${a.id}  ${a.status.padEnd(8)}  ${a.subscriptionId}  ${a.events.length} events  ${a.url}  ${a.name}`;
  const mustExist = async (store: AlertStore, id: string) => {
    const alert = await store.get(null, id);
    if (alert === null) throw new CliExit(`no alert has the id "${id}"`, EXIT.notFound);
    return alert;
  };
  return [
    {
      name: 'alerts list',
      usage: usage(
        'alerts list [--subscription ID] [--json]',
        'One line per alert, newest first: id, status, subscription, events, URL, name (at most 1,000).',
      ),
      options: { ...JSON_OPTIONS, subscription: 'string' },
      run: async ({ values }) => {
        const store = await open(values);
        const alerts = await store.list(
          typeof values.subscription === 'string' ? values.subscription : null,
          null,
          1000,
        );
        if (values.json) io.out(jsonForTerminal(alerts));
        else {
          io.out('ID  STATUS  SUBSCRIPTION  EVENTS  URL  NAME');
          for (const a of alerts) io.out(line(a));
        }
        return EXIT.ok;
      },
    },
    {
      name: 'alerts show',
      usage: usage('alerts show ID [--json]', 'The alert (never its secret) and its ten latest deliveries.'),
      options: JSON_OPTIONS,
      args: ['ID'],
      run: async ({ values, args: [id] }) => {
        const store = await open(values);
        const alert = await mustExist(store, id);
        const deliveries = await store.deliveries(id, null, 10);
        if (values.json) io.out(jsonForTerminal({ ...alert, deliveries }));
        else {
          io.out(line(alert));
          io.out(`query ${jsonForTerminal(alert.query)}`);
          if (alert.disabledReason !== null) io.out(terminal`disabled: ${alert.disabledReason}`);
          for (const d of deliveries) {
            const last =
              d.lastAttempt === null
                ? 'not tried yet'
                : `${d.lastAttempt.statusCode ?? d.lastAttempt.error} at ${d.lastAttempt.at}`;
            io.out(terminal`  ${d.id}  ${d.type}  ${d.status}  ${d.attempts} attempts  ${last}`);
          }
        }
        return EXIT.ok;
      },
    },
    {
      name: 'alerts pause',
      usage: usage(
        'alerts pause ID',
        "Holds the alert's deliveries (its events wait); the partner resumes it with PATCH status=ACTIVE.",
      ),
      options: COMMON,
      args: ['ID'],
      run: async ({ values, args: [id] }) => {
        const store = await open(values);
        await mustExist(store, id);
        await store.update(null, id, { status: 'PAUSED' }, new Date());
        io.out(`paused alert ${id}`);
        return EXIT.ok;
      },
    },
  ];
}
