// How the service starts a thread of its own modules (the embedded engine's index loader and
// search workers, the SQLite store's checkpointer): the built `.js` from dist/, or, when the
// process runs the TypeScript directly under tsx (the fast test loop), the `.ts` module's graph
// bundled into one file by sourceBundle.ts. A bundle is plain JavaScript: its thread starts
// without tsx, which a thread would otherwise take from the process's own options (tsx's hooks
// and their own thread, in each thread, for nothing), and with the bundle's source map read, so
// that a thread's stack names the `.ts` lines as under tsx.
import { Worker } from 'node:worker_threads';
import { sourceBundle } from './sourceBundle.js';

/** A module run from source (TypeScript, under tsx) rather than from dist/. */
const FROM_SOURCE = /\.[cm]?ts$/;

/** The options that load a module before the program's, as `--flag=value` or `--flag value`. */
const PRELOADS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/** Whether a preloaded module is tsx or one of its entry points (by name or by path). */
const isTsx = (module: string): boolean => /^tsx(\/|$)/.test(module) || /[\\/]node_modules[\\/]tsx[\\/]/.test(module);

/** Node's options `execArgv` less those that load tsx; the others kept, in order. */
export function withoutTsx(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    const equals = arg.indexOf('=');
    if (equals > 0 && PRELOADS.has(arg.slice(0, equals)) && isTsx(arg.slice(equals + 1))) continue;
    if (PRELOADS.has(arg) && i + 1 < execArgv.length && isTsx(execArgv[i + 1])) {
      i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}

/**
 * The module `name` beside the module at `base` (its import.meta.url), as that one runs: `.ts` from source, `.js` from
 * dist/.
 */
export function besideModule(base: string, name: string): URL {
  return new URL(`./${name}${FROM_SOURCE.test(new URL(base).pathname) ? '.ts' : '.js'}`, base);
}

/** Starts a thread running `module` (from besideModule) with `workerData`. */
export function startThread(module: URL, workerData: unknown): Worker {
  return FROM_SOURCE.test(module.pathname)
    ? new Worker(sourceBundle(module), {
        workerData,
        execArgv: [...withoutTsx(process.execArgv), '--enable-source-maps'],
      })
    : new Worker(module, { workerData });
}
