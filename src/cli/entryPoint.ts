// Whether a module is the script node was started with (so a file can be both a library and a CLI).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Call with the module's own `import.meta.url`. */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === moduleUrl;
  } catch {
    return pathToFileURL(script).href === moduleUrl;
  }
}
