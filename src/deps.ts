// createDeps(config): the engine and stores the app needs, and how to close them.
import type { AppDeps } from './app.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { createSearchEngine } from './search/factory.js';

export interface Deps extends AppDeps {
  close(): Promise<void>;
}

export async function createDeps(config: Config, log: Logger): Promise<Deps> {
  const engine = await createSearchEngine(config);
  return {
    engine,
    log,
    async close() {
      await engine.close();
    },
  };
}
