// Test support for suites that need a real PostgreSQL (TEST_POSTGRES_URL, by default the shared
// one at 127.0.0.1:5432, user postgres, trust). Each suite creates its own database, named with
// the branch and a random suffix, and drops it after. When PostgreSQL is unreachable the suite is
// skipped with the reason outside CI and fails in CI.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killAtExit, serviceUser, signalTree, waitFor } from './processes.js';
import { describeRequiring } from './redis.js';

export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** null when PostgreSQL answers; otherwise why not. */
export async function postgresMissing(): Promise<string | null> {
  try {
    await withAdmin((c) => c.query('SELECT 1'));
    return null;
  } catch (error) {
    return `PostgreSQL at ${new URL(POSTGRES_ADMIN_URL).host} is unreachable (${(error as Error).message})`;
  }
}

/** A fresh database on the test server: grants_<label>_<random>. */
export async function createTestDatabase(label = 'pgstore'): Promise<TestDatabase> {
  const name = `grants_${label}_${randomBytes(5).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * describe() for a suite that needs PostgreSQL: a before-all hook checks it answers, then skips the
 * suite (outside CI, saying why) or fails it (in CI).
 */
export function describeWithPostgres(title: string, body: (this: Mocha.Suite) => void): void {
  describe(`${title} [postgres]`, function () {
    before(async function () {
      const missing = await postgresMissing();
      if (missing === null) return;
      if (IN_CI)
        throw new Error(
          `${missing} in CI: the postgres suites must run there (start it with scripts/services.sh start)`,
        );
      process.stderr.write(`  skipped "${title}": ${missing} (start PostgreSQL, or set TEST_POSTGRES_URL)\n`);
      this.skip();
    });
    body.call(this);
  });
}

// ---- A private throwaway server for fault tests --------------------------------------------------
// startPrivatePostgres: initdb under a temp dir, its own port, run as the `postgres` user (initdb and
// postgres refuse root); it can be stopped, frozen with SIGSTOP, killed and restarted on the same
// port and data directory. The shared server on 5432 is never stopped or paused. Driven with psql
// and the server binaries.
/** The directory holding initdb, pg_ctl and postgres: PG_BIN_DIR, else the newest Debian install. */
export function postgresBinDir(): string | null {
  const configured = process.env.PG_BIN_DIR?.trim();
  if (configured) return existsSync(path.join(configured, 'postgres')) ? configured : null;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((d) => /^\d+$/.test(d))
    .sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const dir = path.join(root, major, 'bin');
    if (existsSync(path.join(dir, 'postgres')) && existsSync(path.join(dir, 'initdb'))) return dir;
  }
  return null;
}

/** Why a private PostgreSQL cannot be run here, or null when it can. */
export function postgresServerMissing(): string | null {
  if (postgresBinDir() === null) return 'no PostgreSQL server binaries (initdb, postgres) found';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' }).status !== 0)
    return 'no `postgres` user to run a private server as';
  return null;
}
export const POSTGRES_SERVER_HINT =
  'install postgresql (bash scripts/services.sh start postgres does) or set PG_BIN_DIR';

/** describe() for a suite that starts PostgreSQL servers of its own. */
export function describeWithPostgresServer(title: string, body: (this: Mocha.Suite) => void): void {
  describeRequiring(title, 'postgres-server', postgresServerMissing(), POSTGRES_SERVER_HINT, body);
}

/** Runs one SQL statement with psql against a URL; resolves with its unaligned output. */
export function psql(url: string, sql: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'psql',
      ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql],
      { timeout: timeoutMs, env: { ...process.env, PGCONNECT_TIMEOUT: '3' } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`psql failed: ${stderr.trim() || error.message}`));
        else resolve(stdout.trim());
      },
    );
  });
}

/** The same URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface PrivatePostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** The data directory (kept across stop/restart; removed by dispose). */
  dataDir: string;
  /** The running postmaster, or null while stopped. */
  readonly process: ChildProcess | null;
  /** URL of another database on this server. */
  urlFor(database: string): string;
  /** Creates a database on this server; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * Stops the server. SIGINT: fast shutdown (sessions are ended with an error); SIGKILL: a crash,
   * recovered from the WAL at the next start.
   */
  stop(signal?: 'SIGINT' | 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the postmaster and every backend: sockets stay open, nothing answers. */
  pause(): void;
  resume(): void;
  /** Starts the server again on the same port and data directory (the data is kept). */
  start(): Promise<void>;
  /** Stops the server if it runs and removes its directory. */
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * initdb into a fresh temp directory (trust auth, C locale, fsync off: a throwaway) and starts
 * `postgres` on a free port of 127.0.0.1, waiting until it accepts connections.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (bin === null) throw new Error('no PostgreSQL server binaries found (set PG_BIN_DIR)');
  const owner = serviceUser('postgres', 'running as root needs a `postgres` user to run a private PostgreSQL');
  const base = mkdtempSync(path.join(tmpdir(), 'grants-pg-'));
  if (owner) chownSync(base, owner.uid, owner.gid);
  const dataDir = path.join(base, 'data');
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const init = spawnSync(
    path.join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    { ...asOwner, encoding: 'utf8', cwd: base },
  );
  if (init.status !== 0) {
    rmSync(base, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  }
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | null = null;
  let log = '';

  const accepts = async () => {
    const probe = spawnSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1'], {
      stdio: 'ignore',
    });
    return probe.status === 0;
  };

  const start = async () => {
    if (child !== null) return;
    const proc = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${base}`,
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'shared_buffers=32MB',
        '-c',
        'max_connections=100',
      ],
      { ...asOwner, cwd: base, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    proc.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    child = proc;
    // A frozen server is thawed first.
    killAtExit(proc, () => {
      proc.kill('SIGCONT');
      proc.kill('SIGKILL');
    });
    let exited = false;
    proc.once('exit', () => {
      exited = true;
      if (child === proc) child = null;
    });
    const deadline = Date.now() + 30_000;
    while (!(await accepts())) {
      if (exited) throw new Error(`private PostgreSQL on port ${port} exited at start-up:\n${log}`);
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`private PostgreSQL on port ${port} did not accept connections within 30 s:\n${log}`);
      }
      await sleep(50);
    }
  };

  /** Signals the postmaster and its children (backends, checkpointer, …). */
  const signalServer = (signal: NodeJS.Signals) => {
    if (child?.pid !== undefined) signalTree(child.pid, signal);
  };

  const stop = async (signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL' = 'SIGINT') => {
    const proc = child;
    if (proc === null) return;
    if (proc.exitCode !== null || proc.signalCode !== null) {
      child = null;
      return;
    }
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    if (signal === 'SIGKILL') {
      // A killed postmaster leaves its backends behind; kill them too, as a machine crash would.
      signalTree(proc.pid as number, 'SIGKILL');
    } else {
      signalServer('SIGCONT'); // a paused server must run to shut down
      proc.kill(signal);
    }
    await exited;
    child = null;
    // Backends of a killed postmaster exit on their own once they notice; wait for the port.
    await waitFor(async () => !(await accepts()), 10_000, 50);
  };

  await start();
  return {
    port,
    url,
    dataDir,
    get process() {
      return child;
    },
    urlFor: (database: string) => withDatabase(url, database),
    async createDatabase(name: string) {
      if (!/^[a-z0-9_]{1,60}$/.test(name)) throw new Error(`bad database name "${name}"`);
      await psql(url, `create database "${name}"`);
      return withDatabase(url, name);
    },
    stop,
    pause: () => signalServer('SIGSTOP'),
    resume: () => signalServer('SIGCONT'),
    start,
    async dispose() {
      await stop('SIGKILL');
      rmSync(base, { recursive: true, force: true });
    },
  };
}
