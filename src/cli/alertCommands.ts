// grants-admin alerts …: what an operator needs to see and stop of the partners' alerts.
import type { Alert } from '../alerts/model.js';
import type { AlertStore } from '../alerts/store.js';
import type { Command, Io, ParsedArgs } from './runner.js';
import { CliExit } from './runner.js';
import { jsonForTerminal, terminal } from '../terminalText.js';

const usage = (synopsis: string, text: string) => `Usage: grants-admin ${synopsis} [--data-dir DIR]\n\n${text}`;

/** The commands, given how to open the alerts store of the selected database. */
export function alertCommands(open: (values: ParsedArgs['values']) => Promise<AlertStore>, io: Io, notFound: number): Command[] {
  const json = { 'data-dir': 'string', json: 'boolean' } as const;
  const line = (a: Alert) => terminal`${a.id}  ${a.status.padEnd(8)}  ${a.subscriptionId}  ${a.events.length} events  ${a.url}  ${a.name}`;
  const mustExist = async (store: AlertStore, id: string) => {
    const alert = await store.get(null, id);
    if (alert === null) throw new CliExit(`no alert has the id "${id}"`, notFound);
    return alert;
  };
  return [
    {
      name: 'alerts list',
      usage: usage('alerts list [--subscription ID] [--json]', 'One line per alert, newest first: id, status, subscription, events, URL, name (at most 1,000).'),
      options: { ...json, subscription: 'string' },
      run: async ({ values }) => {
        const store = await open(values);
        const alerts = await store.list(typeof values.subscription === 'string' ? values.subscription : null, null, 1000);
        if (values.json) io.out(jsonForTerminal(alerts));
        else {
          io.out('ID  STATUS  SUBSCRIPTION  EVENTS  URL  NAME');
          for (const a of alerts) io.out(line(a));
        }
        return 0;
      },
    },
    {
      name: 'alerts show',
      usage: usage('alerts show ID [--json]', 'The alert (never its secret) and its ten latest deliveries.'),
      options: json,
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
            const last = d.lastAttempt === null ? 'not tried yet' : `${d.lastAttempt.statusCode ?? d.lastAttempt.error} at ${d.lastAttempt.at}`;
            io.out(terminal`  ${d.id}  ${d.type}  ${d.status}  ${d.attempts} attempts  ${last}`);
          }
        }
        return 0;
      },
    },
    {
      name: 'alerts pause',
      usage: usage('alerts pause ID', 'Holds the alert\'s deliveries (its events wait); the partner resumes it with PATCH status=ACTIVE.'),
      options: { 'data-dir': 'string' },
      args: ['ID'],
      run: async ({ values, args: [id] }) => {
        const store = await open(values);
        await mustExist(store, id);
        await store.update(null, id, { status: 'PAUSED' }, new Date());
        io.out(`paused alert ${id}`);
        return 0;
      },
    },
  ];
}
