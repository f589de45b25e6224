// The API as the bench's layer comparison runs it: the production app (same config, deps and
// middleware) with the named layers taken out, to measure what each costs. Never a deployment:
// without `auth`, every request acts as one fixed caller.
//
//   node dist/test/bench/benchServer.js [--without auth,limits,usage]
//
// Any layer of apiLayers() may be taken out but `health` (the bench waits on /readyz), `classify`
// and `dispatch` (a request needs its route and its handler): `auth` gives way to a fixed caller,
// `requestId` to a fixed id (and no X-Request-Id), every other one to nothing.
import { parseArgs } from 'node:util';
import type { Middleware } from 'koa';
import { apiLayers, createApp, type Layer } from '../../src/app.js';
import { isEntryPoint } from '../../src/cli/entryPoint.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import type { AppState } from '../../src/http/state.js';
import { createLogger } from '../../src/log.js';
import { startServer } from '../../src/server.js';
import type { Caller, SubscriptionRecords } from '../../src/subscriptions/port.js';

/** The layers a bench run may take out, in the API's order. */
export const REMOVABLE_LAYERS = [
  'metrics',
  'compression',
  'requestId',
  'accessLog',
  'usage',
  'cors',
  'errors',
  'bounds',
  'openapi',
  'docs',
  'console',
  'searchPage',
  'landing',
  'overload',
  'auth',
  'callerOriginAndIp',
  'status',
  'limits',
  'routeGuard',
  'feature',
  'scope',
  'conditional',
] as const;
type RemovableLayer = (typeof REMOVABLE_LAYERS)[number];

const FIXED_REQUEST_ID = 'req_bench0000000000000000000';

/** The fixed caller of a run without authentication: the first active subscription's first active key. */
async function firstActiveCaller(subscriptions: SubscriptionRecords): Promise<Caller> {
  for (const subscription of await subscriptions.list()) {
    if (subscription.status !== 'ACTIVE') continue;
    const key = (await subscriptions.listKeys(subscription.id)).find((k) => k.revokedAt === null);
    if (key !== undefined)
      return { subscription, keyId: key.id, keyPrefix: key.prefix, restrictions: key.restrictions };
  }
  throw new Error('--without auth needs an active subscription with an active key in the database');
}

/** The API's layers less `without`; `auth` gives way to a layer that sets the fixed caller. */
function layersWithout(layers: readonly Layer[], without: ReadonlySet<RemovableLayer>, caller: Caller | null): Layer[] {
  return layers.flatMap((layer): Layer[] => {
    if (!without.has(layer.name as RemovableLayer)) return [layer];
    if (layer.name === 'requestId') {
      const fixedRequestId: Middleware<AppState> = function fixedRequestId(ctx, next) {
        ctx.state.requestId = FIXED_REQUEST_ID;
        ctx.state.params = {};
        return next();
      };
      return [{ name: 'fixedRequestId', middleware: fixedRequestId }];
    }
    if (layer.name !== 'auth') return [];
    const fixedCaller: Middleware<AppState> = async function fixedCaller(ctx, next) {
      ctx.state.caller = caller!;
      await next();
    };
    return [{ name: 'fixedCaller', middleware: fixedCaller }];
  });
}

function parseWithout(argv: string[]): Set<RemovableLayer> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: { without: { type: 'string', default: '' } },
  });
  const without = new Set<RemovableLayer>();
  for (const name of values.without
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')) {
    if (!(REMOVABLE_LAYERS as readonly string[]).includes(name))
      throw new Error(`--without takes a comma list of ${REMOVABLE_LAYERS.join(', ')} (got "${name}")`);
    without.add(name as RemovableLayer);
  }
  return without;
}

async function main(): Promise<void> {
  const without = parseWithout(process.argv.slice(2));
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const deps = await createDeps(config, log);
  const app = createApp(
    deps,
    layersWithout(apiLayers(deps), without, without.has('auth') ? await firstActiveCaller(deps.subscriptions) : null),
  );
  const running = await startServer(app, config.port, config.host, log);
  log.warn('bench server listening (not a deployment)', { url: running.url, layersOff: [...without] });
  const stop = async () => {
    await running.stop(config.shutdownTimeoutMs);
    await deps.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`bench server failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
