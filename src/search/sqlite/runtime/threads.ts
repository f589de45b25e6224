// The engine's threads (indexLoader.ts, searchWorker.ts), started from their modules beside this
// one as the service starts any thread of its own (src/threads/start.ts).
import type { Worker } from 'node:worker_threads';
import { besideModule, startThread as startModuleThread } from '../../../threads/start.js';

type ThreadModule = 'indexLoader' | 'searchWorker';

export function startThread(name: ThreadModule, workerData: unknown): Worker {
  return startModuleThread(besideModule(import.meta.url, name), workerData);
}
