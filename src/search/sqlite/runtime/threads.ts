// How the engine starts its threads (indexLoader.ts, searchWorker.ts) from their modules beside
// this one: the built `.js` from dist/, or, when the process runs the TypeScript directly under tsx
// (the fast test loop), the `.ts` module's graph bundled into one file by sourceBundle.ts.
import { Worker } from 'node:worker_threads';
import { sourceBundle } from './sourceBundle.js';

type ThreadModule = 'indexLoader' | 'searchWorker';

export function startThread(name: ThreadModule, workerData: unknown): Worker {
  const fromSource = /\.[cm]?ts$/.test(new URL(import.meta.url).pathname);
  const module = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  return new Worker(fromSource ? sourceBundle(module) : module, { workerData });
}
