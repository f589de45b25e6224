// A thread's module as one JavaScript file, for a process that runs the TypeScript directly under
// tsx (the fast test loop). Node 20 does not carry a loader's hooks into a worker thread, and
// registering tsx in each thread costs more CPU than the thread's whole start from the build (tsx
// itself, then each module of the engine transformed one by one). esbuild, tsx's own transformer,
// bundles the thread's module graph once per process instead, the packages left as imports of
// node_modules, and the thread loads that file as it loads its module from dist/. Never used from
// the build.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../repoRoot.js';

type Esbuild = typeof import('esbuild');

/** The one module of the threads' graphs that reads its own import.meta.url. */
const READS_OWN_URL = path.join(REPO_ROOT, 'src', 'repoRoot.ts');

const bundles = new Map<string, URL>();

/** The bundle of the TypeScript module at `source`, built on this process's first call. */
export function sourceBundle(source: URL): URL {
  const known = bundles.get(source.href);
  if (known !== undefined) return known;
  // The esbuild tsx itself depends on (the process runs under tsx, so it is installed).
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const esbuild = createRequire(tsx)('esbuild') as Esbuild;
  const entry = fileURLToPath(source);
  const result = esbuild.buildSync({
    entryPoints: [entry],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    metafile: true,
    sourcemap: 'inline',
    logLevel: 'silent',
    // In a bundle import.meta.url is the bundle's: it is set to the URL of the module that reads it.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(READS_OWN_URL).href) },
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(REPO_ROOT, input);
    if (file !== READS_OWN_URL && readFileSync(file, 'utf8').includes('import.meta'))
      throw new Error(`${input} reads import.meta: a thread's bundle gives it the URL of ${READS_OWN_URL}`);
  }
  // In node_modules/.cache, the bundle's package imports resolve as the sources' do.
  const dir = path.join(REPO_ROOT, 'node_modules', '.cache', 'grants-threads');
  mkdirSync(dir, { recursive: true });
  // Named by its content: processes bundling the same sources write the same file, each its own copy
  // first, then renamed into place whole.
  const contents = result.outputFiles[0]!.contents;
  const hash = createHash('sha256').update(contents).digest('hex').slice(0, 16);
  const file = path.join(dir, `${path.basename(entry, '.ts')}-${hash}.mjs`);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
  const url = pathToFileURL(file);
  bundles.set(source.href, url);
  return url;
}
