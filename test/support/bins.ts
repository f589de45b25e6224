// The installed CLIs (bin/grants-admin.js, bin/grants-indexer.js) run as child processes, as an
// operator runs them: in a folder of the test's choosing, with its environment and stdin.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './api.js';

export interface BinRun {
  code: number | null;
  out: string;
  err: string;
}

export interface BinOptions {
  /** The working folder (default: the repository). */
  cwd?: string;
  /** The whole environment of the process (default: this one's). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, then closed (default: stdin closed at once). */
  input?: string;
}

/** Runs `node bin/<name>.js args…` to its end; resolves with its exit code and output. */
export function runBin(
  name: 'grants-admin' | 'grants-indexer',
  args: string[],
  options: BinOptions = {},
): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, `bin/${name}.js`), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(options.input);
  });
}
