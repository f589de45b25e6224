#!/usr/bin/env node
// Compiles the TypeScript (tsc -p tsconfig.json) only when something it reads changed since the
// last successful build, so `npm start` on an unchanged tree starts at once; `--always` compiles
// whatever the state.
//
// What counts as a change is content, never a file's time: a digest (SHA-256) of tsconfig.json,
// package.json, the TypeScript compiler's version and every TypeScript file under the folders
// tsconfig.json includes (their paths and contents, so a file added, removed or renamed counts
// too). package-lock.json is not read: `npm install` rewrites it after `prepare` has built, and
// what the compiler emits depends on the compiler (its version is in the digest), not on the
// lock file. The digest of the inputs as they were when the last successful build began is
// written to <outDir>/.build-stamp once tsc has succeeded; a build removes the stamp first, so
// after a failed one the next run compiles again, and deleting the output folder deletes the
// stamp with it. After a successful build, compiled files whose source is gone (moved or deleted)
// are removed. Plain JavaScript, run by node before anything is built.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSCONFIG = path.join(ROOT, 'tsconfig.json');
const PROJECT_FILES = [
  TSCONFIG,
  path.join(ROOT, 'package.json'),
  path.join(ROOT, 'node_modules', 'typescript', 'package.json'),
];
const SOURCE = /\.(c|m)?tsx?$/;

/** The folders tsconfig.json includes and its output folder; null when it cannot be read plainly. */
function projectLayout() {
  try {
    const tsconfig = JSON.parse(readFileSync(TSCONFIG, 'utf8'));
    const include = Array.isArray(tsconfig.include) ? tsconfig.include : ['.'];
    const outDir = tsconfig.compilerOptions?.outDir;
    if (typeof outDir !== 'string' || include.some((entry) => typeof entry !== 'string' || /[*?]/.test(entry)))
      return null;
    return { include: include.map((entry) => path.join(ROOT, entry)), outDir: path.join(ROOT, outDir) };
  } catch {
    return null;
  }
}

/** The TypeScript files under a folder and its sub-folders (not node_modules, hidden folders or the output). */
function sourcesUnder(dir, skip, into) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return into;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.') || full === skip) continue;
      sourcesUnder(full, skip, into);
    } else if (SOURCE.test(entry.name)) {
      into.push(full);
    }
  }
  return into;
}

/** The digest of every input: each file's path (relative to the project) and content, in a fixed order. */
function inputsDigest(layout) {
  const files = [...PROJECT_FILES];
  for (const dir of layout.include) files.push(...sourcesUnder(dir, layout.outDir, []).sort());
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${path.relative(ROOT, file)}\0`);
    try {
      const content = readFileSync(file);
      hash.update(`${content.length}\0`).update(content);
    } catch {
      hash.update('absent\0');
    }
  }
  return hash.digest('hex');
}

/** What tsc emits for a source, by the source's extension: the compiled file's extension. */
const EMITTED = [
  ['.ts', '.js'],
  ['.tsx', '.js'],
  ['.mts', '.mjs'],
  ['.cts', '.cjs'],
];

/**
 * Removes the compiled files (and their source maps) whose source is gone, under the output
 * folders of the included ones: tsc never deletes what it emitted, so a moved or deleted source
 * would leave its old output behind, and mocha (whose spec is every compiled test) would still run
 * a moved test at its old place. A folder left empty goes too; other files of the output (JSON
 * tsc copied, the stamp) stay.
 */
function removeOrphans(layout) {
  const visit = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') visit(full);
        continue;
      }
      const name = entry.name.endsWith('.map') ? entry.name.slice(0, -'.map'.length) : entry.name;
      const emitted = EMITTED.filter(([, out]) => name.endsWith(out));
      if (emitted.length === 0) continue;
      const source = path.join(ROOT, path.relative(layout.outDir, dir), name);
      const alive = emitted.some(([ext, out]) => existsSync(source.slice(0, -out.length) + ext));
      if (!alive) rmSync(full, { force: true });
    }
    if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
  };
  for (const included of layout.include) visit(path.join(layout.outDir, path.relative(ROOT, included)));
}

/** The digest of the inputs the last successful build compiled, or null when there was none. */
function lastBuildDigest(stamp) {
  try {
    const value = JSON.parse(readFileSync(stamp, 'utf8')).inputs;
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Why a build is needed, or null when the output is up to date. */
function reasonToBuild(layout, digest) {
  if (layout === null) return 'tsconfig.json is not plain JSON with an outDir and literal include folders';
  const built = lastBuildDigest(path.join(layout.outDir, '.build-stamp'));
  if (built === null) return 'no successful build recorded';
  return built === digest ? null : 'sources changed since the last build';
}

function main() {
  const always = process.argv.includes('--always');
  const layout = projectLayout();
  // Read before tsc starts: an edit made while it compiles makes the next run compile again.
  const digest = layout === null ? null : inputsDigest(layout);
  const reason = always ? 'asked to' : reasonToBuild(layout, digest);
  if (reason === null) return 0;
  if (!always) process.stderr.write(`build: compiling the TypeScript (${reason})\n`);
  // Until tsc succeeds, no build is recorded: a failed one must not leave the last good stamp.
  if (layout !== null) rmSync(path.join(layout.outDir, '.build-stamp'), { force: true });
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', TSCONFIG], { cwd: ROOT, stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`build: could not run tsc (${result.error.message}); run npm install first.\n`);
    return 1;
  }
  if (result.status !== 0) return result.status ?? 1;
  if (layout !== null) {
    removeOrphans(layout);
    mkdirSync(layout.outDir, { recursive: true });
    writeFileSync(path.join(layout.outDir, '.build-stamp'), `${JSON.stringify({ inputs: digest })}\n`);
  }
  return 0;
}

process.exitCode = main();
