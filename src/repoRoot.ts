// The repository's root folder, found from this module's own place: `<root>/src/repoRoot.ts` when
// run from source (tsx), `<root>/dist/src/repoRoot.js` when run from the build. Files that ship
// beside the code (mappings/, fixtures/, the console page's assets) are read from here, so the
// same code finds them from either.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function rootFrom(moduleUrl: string): string {
  const parent = path.resolve(path.dirname(fileURLToPath(moduleUrl)), '..');
  return path.basename(parent) === 'dist' ? path.dirname(parent) : parent;
}

export const REPO_ROOT = rootFrom(import.meta.url);

/** A path inside the repository, e.g. `repoPath('mappings/sqlite-catalog.sql')`. */
export function repoPath(...parts: string[]): string {
  return path.join(REPO_ROOT, ...parts);
}
