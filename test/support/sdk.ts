// The TypeScript SDK (clients/typescript) as a partner gets it: built by its own package script
// (its own tsc and tsconfig, into clients/typescript/dist), then loaded from that build. The types
// come from its sources, so these suites are type-checked against the SDK's real signatures.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './api.js';

export type Sdk = typeof import('../../clients/typescript/src/index.js');

export const SDK_DIR = path.join(REPO_ROOT, 'clients/typescript');

/** Runs a command in `cwd`; resolves with its exit code and output (stdout and stderr). */
export function run(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs = 180_000,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

let built: Promise<Sdk> | undefined;

/** Builds the SDK once per test run (`npm run build` in its folder) and imports its dist/index.js. */
export function loadSdk(): Promise<Sdk> {
  built ??= (async () => {
    const build = await run('npm', ['run', 'build', '--silent'], SDK_DIR);
    if (build.code !== 0) throw new Error(`building the SDK failed (exit ${build.code}):\n${build.out}\n${build.err}`);
    return (await import(pathToFileURL(path.join(SDK_DIR, 'dist/index.js')).href)) as Sdk;
  })();
  return built;
}
