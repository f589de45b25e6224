// The builds bench:compare sets side by side: this checkout's working tree as it is built, or a git
// ref checked out in a temporary `git worktree` (node_modules linked to this checkout's) and built
// there with the project's own build script.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './catalog.js';

export interface Build {
  /** How the tables name it: the ref as given, or "working tree". */
  label: string;
  /** The commit it was built from (for the working tree, HEAD). */
  commit: string;
  /** Whether it holds changes no commit holds (a working tree with uncommitted changes). */
  uncommitted: boolean;
  /** The checkout whose dist/ and bin/ run. */
  root: string;
  /** Removes a temporary worktree (nothing for the working tree). */
  remove(): void;
}

const git = (args: string[], cwd = REPO_ROOT): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The full commit a ref names; throws when it names none. */
export function commitOf(ref: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`"${ref}" names no commit of this repository`);
  }
}

/** This checkout as it is (the caller has built it: npm run bench:compare builds first). */
export function workingTree(): Build {
  const uncommitted = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  return {
    label: uncommitted ? 'working tree' : 'working tree (clean)',
    commit: commitOf('HEAD'),
    uncommitted,
    root: REPO_ROOT,
    remove: () => {},
  };
}

/**
 * `ref` checked out (detached) in `dir` as a temporary worktree of this repository, with
 * node_modules linked to this checkout's, built by its own `scripts/build-if-changed.mjs --always`.
 * The build's output goes to `log`.
 */
export function buildRef(ref: string, dir: string, log: (text: string) => void): Build {
  const commit = commitOf(ref);
  git(['worktree', 'add', '--detach', dir, commit]);
  const remove = () => {
    try {
      git(['worktree', 'remove', '--force', dir]);
    } catch {
      git(['worktree', 'prune']);
    }
  };
  try {
    symlinkSync(realpathSync(path.join(REPO_ROOT, 'node_modules')), path.join(dir, 'node_modules'));
    const built = spawnSync(process.execPath, ['scripts/build-if-changed.mjs', '--always'], {
      cwd: dir,
      encoding: 'utf8',
    });
    log(`${built.stdout}${built.stderr}`);
    if (built.status !== 0)
      throw new Error(`the build of ${ref} (${commit.slice(0, 12)}) failed:\n${built.stdout}${built.stderr}`);
  } catch (error) {
    remove();
    throw error;
  }
  return { label: ref, commit, uncommitted: false, root: dir, remove };
}

/**
 * The files that make the embedded catalog's format: its schema, what writes it and what the
 * writer folds and encodes. Two builds whose trees differ in none of them read one catalog.
 */
const CATALOG_FORMAT = [
  /^mappings\//,
  /^src\/grants\//,
  /^(indexer\/cli|src\/cli\/indexer)\.ts$/,
  /^src\/search\/sqlite\/(.*\/)?(writer|catalogFile|changeLog|fts5Expression|translator)\.ts$/,
];

/**
 * A file's text less what a move to another folder or a reworded comment changes: import
 * statements, the depth of relative paths and whole-line comments in TypeScript, `--` comments in SQL.
 */
const essence = (text: string, file: string): string =>
  (file.endsWith('.sql')
    ? text.replace(/--.*$/gm, '')
    : text
        .replace(/^import\s[^;]*;\s*$/gm, '')
        .replace(/^\s*(\/\/|\/\*|\*).*$/gm, '')
        .replace(/(\.\.\/)+/g, '../')
  ).replace(/\s+/g, ' ');

/** A file's text in a build: its commit's, or this checkout's file for the working tree; null when absent. */
function textIn(build: Build, file: string): string | null {
  try {
    return build.root === REPO_ROOT && build.uncommitted
      ? readFileSync(path.join(REPO_ROOT, file), 'utf8')
      : git(['show', `${build.commit}:${file}`]);
  } catch {
    return null;
  }
}

/**
 * The catalog-format files (CATALOG_FORMAT) that differ between two builds; a file moved, or
 * edited in its imports or comments only, does not count. Empty: one catalog serves both.
 */
export function catalogFormatChanges(base: Build, head: Build): string[] {
  const range = head.root === REPO_ROOT ? [base.commit] : [base.commit, head.commit];
  const lines = git(['diff', '-M', '--name-status', ...range])
    .split('\n')
    .filter((l) => l !== '');
  const changed: string[] = [];
  for (const line of lines) {
    const [status, ...paths] = line.split('\t');
    if (!paths.some((p) => CATALOG_FORMAT.some((pattern) => pattern.test(p)))) continue;
    const before = textIn(base, paths[0]);
    const after = textIn(head, paths[paths.length - 1]);
    const same =
      before !== null &&
      after !== null &&
      (status === 'R100' || essence(before, paths[0]) === essence(after, paths[0]));
    if (!same) changed.push(paths.join(' → '));
  }
  return changed;
}
