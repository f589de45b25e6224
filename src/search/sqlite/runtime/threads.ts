// How the engine starts its threads (indexLoader.ts, searchWorker.ts) from their modules beside
// this one: the built `.js` from dist/, or the `.ts` source when the process runs the TypeScript
// directly under tsx (the fast test loop), through sourceThread.mjs, which registers tsx in the
// thread first.
import { Worker } from 'node:worker_threads';

type ThreadModule = 'indexLoader' | 'searchWorker';

export function startThread(name: ThreadModule, workerData: unknown): Worker {
  const fromSource = /\.[cm]?ts$/.test(new URL(import.meta.url).pathname);
  const module = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSource) return new Worker(module, { workerData });
  return new Worker(new URL('./sourceThread.mjs', import.meta.url), { workerData, argv: [module.href] });
}
