#!/usr/bin/env node
// Compiles the TypeScript (tsc -p tsconfig.json) only when something it reads changed since the
// last successful build, so `npm start` on an unchanged tree starts at once; `--always` compiles
// whatever the state.
//
// What counts as a change: tsconfig.json, package.json or package-lock.json, any TypeScript file
// under the folders tsconfig.json includes, or one of those folders themselves (a folder's time
// moves when a file in it is added, removed or renamed, so deletions count too), modified after
// the last successful build began. That moment (less a margin) is written to
// <outDir>/.build-stamp once tsc has succeeded; a build removes the stamp first, so after a failed
// one the next run compiles again, and deleting the output folder deletes the stamp with it.
// Plain JavaScript, run by node before anything is built.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSCONFIG = path.join(ROOT, 'tsconfig.json');
const PROJECT_FILES = [TSCONFIG, path.join(ROOT, 'package.json'), path.join(ROOT, 'package-lock.json')];
const SOURCE = /\.(c|m)?tsx?$/;
/**
 * The stamp says the build began this much earlier than it did: a file's time comes from the
 * kernel's coarse clock (a tick behind) or a file system with whole-second times, so an edit made
 * just as tsc started must still look newer than the build.
 */
const CLOCK_MARGIN_MS = 1000;

/** The folders tsconfig.json includes and its output folder; null when it cannot be read plainly. */
function projectLayout() {
  try {
    const tsconfig = JSON.parse(readFileSync(TSCONFIG, 'utf8'));
    const include = Array.isArray(tsconfig.include) ? tsconfig.include : ['.'];
    const outDir = tsconfig.compilerOptions?.outDir;
    if (typeof outDir !== 'string' || include.some((entry) => typeof entry !== 'string' || /[*?]/.test(entry))) return null;
    return { include: include.map((entry) => path.join(ROOT, entry)), outDir: path.join(ROOT, outDir) };
  } catch {
    return null;
  }
}

/** Modification time in ms, or null when the path does not exist. */
function mtimeOf(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** The latest modification time among a folder, its sub-folders and their TypeScript files. */
function newestUnder(dir, skip) {
  let newest = mtimeOf(dir) ?? 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.') || full === skip) continue;
      newest = Math.max(newest, newestUnder(full, skip));
    } else if (SOURCE.test(entry.name)) {
      newest = Math.max(newest, mtimeOf(full) ?? 0);
    }
  }
  return newest;
}

/** When the last successful build began (ms), or null when there was none. */
function lastBuildStart(stamp) {
  try {
    const value = JSON.parse(readFileSync(stamp, 'utf8')).startedAt;
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** Why a build is needed, or null when the output is up to date. */
function reasonToBuild(layout) {
  if (layout === null) return 'tsconfig.json is not plain JSON with an outDir and literal include folders';
  const builtFrom = lastBuildStart(path.join(layout.outDir, '.build-stamp'));
  if (builtFrom === null) return 'no successful build recorded';
  let newest = 0;
  for (const file of PROJECT_FILES) newest = Math.max(newest, mtimeOf(file) ?? 0);
  for (const dir of layout.include) newest = Math.max(newest, newestUnder(dir, layout.outDir));
  return newest > builtFrom ? 'sources changed since the last build' : null;
}

function main() {
  const always = process.argv.includes('--always');
  const layout = projectLayout();
  const reason = always ? 'asked to' : reasonToBuild(layout);
  if (reason === null) return 0;
  if (!always) process.stderr.write(`build: compiling the TypeScript (${reason})\n`);
  const startedAt = Date.now() - CLOCK_MARGIN_MS;
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
    mkdirSync(layout.outDir, { recursive: true });
    writeFileSync(path.join(layout.outDir, '.build-stamp'), `${JSON.stringify({ startedAt })}\n`);
  }
  return 0;
}

process.exitCode = main();
