// Process entry: config → deps → listen; on SIGTERM/SIGINT stop accepting, drain, flush, close.
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createDeps } from './deps.js';
import { createLogger, describeError } from './log.js';
import { seedCatalogIfEmpty } from './seed.js';
import { ensureDemoSubscription } from './subscriptions/demo.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const deps = await createDeps(config, log);
  await seedCatalogIfEmpty(config, deps.engine, log);
  const demo = ensureDemoSubscription(deps.subscriptions, config.demoApiKey);
  const app = createApp(deps);
  const running = await startServer(app, config.port, config.host, log);
  log.info('grants API listening', { url: `${running.url}/external/v1/grants`, engine: deps.engine.name, dataDir: config.dataDir });
  if (demo !== null) {
    // Shown once, on the first start only: the database keeps nothing but the key's hash.
    process.stdout.write(
      `\nNo subscription existed, so a demo PROFESSIONAL subscription was created (${demo.subscriptionId}).\n` +
        `Its API key (shown only now):\n\n  ${demo.apiKey}\n\nTry:\n  curl -H 'Authorization: Bearer ${demo.apiKey}' '${running.url}/external/v1/grants?search=quebec&limit=5'\n\n`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    await running.stop(config.shutdownTimeoutMs);
    await deps.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`grants API failed to start: ${JSON.stringify(describeError(error))}\n`);
  process.exit(1);
});
