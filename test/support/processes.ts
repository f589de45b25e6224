// Test support for suites that run real processes (the server, npm start, the CLIs):
// - freePort / portIsFree: ports on 127.0.0.1.
// - launch: a child process with its output kept and waited on.
// - descendants / isRunning / killTree / signalTree: a process tree read from /proc (Linux), zombies counted as gone.
// - killAtExit: private servers killed when the test process exits; serviceUser: the user a server that refuses root
//   runs as.
// - waitFor: polling until a check holds.
// - apiProcessArgs: how to start the API process, from the build or from source.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The lowest port the kernel hands out for outgoing connections (Linux), 32768 when unknown. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const handedOut = new Set<number>();

/**
 * A port nothing listens on at the moment of asking, taken below the kernel's ephemeral range: a
 * port from that range can be taken meanwhile by any outgoing connection, even by a client polling
 * that very port before its server listens (TCP connects to itself when the kernel picks the
 * destination port as the source port), and the server then fails to bind. Never the same port
 * twice in one process.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = 10_000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await portIsFree(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a server could listen on the port now (it is closed again at once). */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** Holds a port (as another program would) until release() is called. */
export async function holdPort(host = '127.0.0.1'): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return { port, release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The state letter of /proc/<pid>/stat (R, S, Z…), or null when the process does not exist. */
function processState(pid: number): { state: string; parent: number } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], parent: Number(fields[1]) };
}

/** Whether the process exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  const info = processState(pid);
  return info !== null && info.state !== 'Z' && info.state !== 'X';
}

/** Every running descendant of a process (children, their children…). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = processState(Number(name));
    if (info === null || !isRunning(Number(name))) continue;
    const list = children.get(info.parent) ?? [];
    list.push(Number(name));
    children.set(info.parent, list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Polls `probe` every `everyMs` until it returns true; false if `timeoutMs` passes first. */
export async function waitFor(
  probe: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/**
 * Waits for `check` to hold (polled every 25 ms), throwing "timed out waiting for <what>" when `timeoutMs` passes
 * first.
 */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  if (!(await waitFor(check, timeoutMs, 25))) throw new Error(`timed out waiting for ${what}`);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Launched {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  /** Resolves once the stream's text so far matches; rejects if the process exits first or on timeout. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** SIGKILLs the process if it is still running (for afterEach). */
  kill(): void;
}

/**
 * The node arguments that start the API process as this test process runs: `dist/src/main.js`
 * from the build, or `src/main.ts` with this process's flags (tsx's `--import`) when the tests
 * run from source (`npm run test:fast`, `npm run test:one`), so that such a suite needs no build.
 */
export function apiProcessArgs(): string[] {
  return import.meta.url.endsWith('.ts') ? [...process.execArgv, 'src/main.ts'] : ['dist/src/main.js'];
}

export function launch(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Launched {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const text = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (text.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text.stderr += d));
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  return {
    child,
    pid: child.pid!,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    exited,
    async waitFor(stream, pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(text[stream]);
        if (match !== null) return match;
        const outputs = `\n--- stdout:\n${text.stdout}\n--- stderr:\n${text.stderr}`;
        if (exit !== null)
          throw new Error(`${command} exited (${JSON.stringify(exit)}) before ${stream} matched ${pattern}${outputs}`);
        if (Date.now() > deadline)
          throw new Error(`${stream} of ${command} did not match ${pattern} within ${timeoutMs} ms${outputs}`);
        await sleep(25);
      }
    },
    kill() {
      if (exit === null) child.kill('SIGKILL');
    },
  };
}

/** SIGKILLs a process and every descendant still running (cleanup after a failed test). */
export function killTree(pid: number): void {
  signalTree(pid, 'SIGKILL');
}

/** Sends `signal` to a process and every descendant of it, deepest first (a server's launcher and workers). */
export function signalTree(root: number, signal: NodeJS.Signals): void {
  for (const pid of [...descendants(root).reverse(), root]) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Private servers still running, each with how to kill it: killed when this process exits, so none outlives an
 * interrupted run.
 */
const killedAtExit = new Map<ChildProcess, () => void>();
let exitHookInstalled = false;
/** Kills `proc` (SIGKILL unless `kill` says otherwise) if it still runs when this process exits. */
export function killAtExit(proc: ChildProcess, kill: () => void = () => proc.kill('SIGKILL')): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const killOne of killedAtExit.values()) killOne();
    });
  }
  killedAtExit.set(proc, kill);
  proc.once('exit', () => killedAtExit.delete(proc));
}

/**
 * uid/gid of the system user `name` when running as root (servers that refuse root run as it);
 * null when not root. Throws `missing` when root and the user does not exist.
 */
export function serviceUser(name: string, missing: string): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(missing);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
