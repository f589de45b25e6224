// Process entry: config → listen → deps → seed → demo subscription → serve; on SIGTERM/SIGINT stop
// accepting, drain, flush, close. The port is bound before anything is created, so a start that
// cannot listen leaves nothing behind (no catalog, no demo subscription whose key nobody saw).
// What the operator must read goes to stderr (src/startupMessages.ts), apart from the JSON log
// lines on stdout; a start-up failure is one sentence there and a non-zero exit.
import { createApp } from './app.js';
import { loadConfig, relaxedSafetySettings, type Config } from './config.js';
import { createDeps, type Deps } from './deps.js';
import { createLogger, describeError, logFormatFor, type Logger } from './log.js';
import { seedCatalogIfEmpty } from '../indexer/seed.js';
import { listen, type ListeningServer } from './server.js';
import { demoKeyBanner, demoKeyHint, startupFailureSentence } from './startupMessages.js';

const toTerminal = (text: string): void => void process.stderr.write(text);

/**
 * The password in DATABASE_URL, scrubbed from every log line like the other secrets (the URL is
 * never logged; this is for an error that would quote it). A password shorter than 8 characters
 * is not scrubbed as a literal: it would blank ordinary words.
 */
function databasePassword(url: string | null): string | null {
  if (url === null) return null;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password.length >= 8 ? password : null;
  } catch {
    return null;
  }
}

/**
 * On SIGTERM/SIGINT: stop accepting, answer what is in flight and let every request run to its end (its client gone or
 * not), then close the deps (the stores flushing first), exit 0.
 */
function stopOnSignals(server: ListeningServer, deps: Deps, config: Config, log: Logger): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    await server.stop(config.shutdownTimeoutMs);
    await deps.close();
    log.info('stopped');
    log.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    toTerminal(`${startupFailureSentence(error, null)}\n`);
    process.exit(2);
  }
  const log = createLogger(config.logLevel, {
    format: logFormatFor(config.logFormat, process.stdout.isTTY === true),
    secrets: [config.demoApiKey, config.metricsToken, databasePassword(config.databaseUrl)],
  });
  let server: ListeningServer | undefined;
  let deps: Deps | undefined;
  try {
    server = await listen(config.port, config.host, log, config.http);
    deps = await createDeps(config, log);
    await seedCatalogIfEmpty(config, deps.engine, log);
    const demo = await deps.demo.createIfNone(config.demoApiKey);
    server.serve(createApp(deps));
    // Before anyone can know it is ready: a stop from then on is graceful.
    stopOnSignals(server, deps, config, log);
    for (const warning of relaxedSafetySettings(config)) log.warn(warning);
    log.info('grants API listening', {
      url: `${server.url}/external/v1/grants`,
      engine: deps.engine.name,
      dataDir: config.dataDir,
    });
    if (demo !== null) {
      // Shown once, whatever stderr is: the database keeps nothing but the key's hash.
      toTerminal(demoKeyBanner(demo, server.url));
      await deps.demo.markKeyShown(demo.subscriptionId);
    } else {
      const unseen = await deps.demo.keyNeverShown();
      if (unseen !== null) toTerminal(demoKeyHint(unseen, config.dataDir, config.databaseUrl !== null));
    }
  } catch (error) {
    log.debug('start-up failed', describeError(error));
    await server?.stop(0).catch(() => undefined);
    await deps?.close().catch(() => undefined);
    toTerminal(`${startupFailureSentence(error, config)}\n`);
    process.exit(1);
  }
}

main().catch((error) => {
  toTerminal(`${startupFailureSentence(error, null)}\n`);
  process.exit(1);
});
