// Bench step 1: a generated catalog on disk (the fixture generator, streamed), a sample of it for
// the request mix, and the real indexer run as a child process with its throughput and peak memory.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { generateGrants, Random, type TextShape } from '../../fixtures/generate.js';
import type { Grant } from '../../src/grants/schema.js';

export const REPO_ROOT = path.resolve(new URL('../../..', import.meta.url).pathname);

/** What the request mix is drawn from: a uniform sample of the catalog's records. */
export interface CatalogSample {
  ids: string[];
  titles: string[];
  funders: string[];
  /** Word → number of sampled grants whose title, funder or description holds it (lower-cased). */
  documentFrequency: Map<string, number>;
  /** Number of grants sampled (the denominator of documentFrequency). */
  size: number;
}

export interface GeneratedCatalog {
  file: string;
  grants: number;
  bytes: number;
  seconds: number;
  sample: CatalogSample;
}

const SAMPLE_SIZE = 2000;

/** Words as the API splits them (letters and digits), lower-cased. */
export const wordsOf = (text: string): string[] =>
  (text.normalize('NFC').match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? []).map((w) => w.toLowerCase());

/** The sample's facts: ids, titles, funders and each word's document frequency. */
function sampleOf(grants: readonly Grant[]): CatalogSample {
  const documentFrequency = new Map<string, number>();
  for (const grant of grants) {
    for (const word of new Set(wordsOf(`${grant.title} ${grant.funder} ${grant.description ?? ''}`))) {
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    }
  }
  return {
    ids: grants.map((g) => g.id),
    titles: grants.map((g) => g.title),
    funders: [...new Set(grants.map((g) => g.funder))],
    documentFrequency,
    size: grants.length,
  };
}

/**
 * Streams `count` generated grants to `file` as NDJSON (waiting for drain, so memory stays flat)
 * and keeps a uniform reservoir sample of them.
 */
export async function writeCatalog(
  file: string,
  count: number,
  seed: number,
  text: TextShape = 'short',
): Promise<GeneratedCatalog> {
  const started = process.hrtime.bigint();
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  await once(out, 'open');
  const rng = new Random(seed ^ 0x2545f491);
  const reservoir: Grant[] = [];
  let bytes = 0;
  let seen = 0;
  for (const grant of generateGrants(count, seed, text)) {
    seen += 1;
    if (reservoir.length < SAMPLE_SIZE) reservoir.push(grant);
    else {
      const slot = rng.int(seen);
      if (slot < SAMPLE_SIZE) reservoir[slot] = grant;
    }
    const line = `${JSON.stringify(grant)}\n`;
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return {
    file,
    grants: count,
    bytes,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    sample: sampleOf(reservoir),
  };
}

/** An embedded catalog already indexed (a kept --data-dir): its size and a seeded uniform sample of its grants. */
export function sampleIndexedCatalog(file: string, seed: number): { grants: number; sample: CatalogSample } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rowids = db.prepare('SELECT rowid FROM grants').pluck().all() as number[];
    const rng = new Random(seed ^ 0x2545f491);
    const doc = db.prepare('SELECT doc FROM grants WHERE rowid = ?').pluck();
    const picked = rng.sample(rowids, SAMPLE_SIZE).map((rowid) => JSON.parse(doc.get(rowid) as string) as Grant);
    return { grants: rowids.length, sample: sampleOf(picked) };
  } finally {
    db.close();
  }
}

/** Bytes of an SQLite file and its write-ahead log. */
export function catalogBytes(file: string): number {
  const size = (f: string) => statSync(f, { throwIfNoEntry: false })?.size ?? 0;
  return size(file) + size(`${file}-wal`);
}

export interface IndexerRun {
  engine: string;
  exitCode: number | null;
  indexed: number;
  seconds: number;
  recordsPerSecond: number;
  /** Peak resident set (VmHWM) of the indexer process, in MiB. */
  peakRssMiB: number;
  /** How the peak was sampled. */
  rssMethod: string;
  output: string;
}

/** VmHWM / VmRSS of a live process in KiB, or null once it has exited. */
export function procMemory(pid: number): { hwmKiB: number; rssKiB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
    if (hwm === null || rss === null) return null;
    return { hwmKiB: Number(hwm[1]), rssKiB: Number(rss[1]) };
  } catch {
    return null;
  }
}

/**
 * Runs `node bin/grants-indexer.js reindex --source <file> [args]` of the checkout `cwd` (default
 * this one) as a child process with the given environment (DATA_DIR, SEARCH_ENGINE, ELASTICSEARCH_*),
 * polling its VmHWM every 20 ms: the high-water mark only grows, so the last reading before exit
 * is the peak.
 */
export async function runIndexer(
  file: string,
  env: NodeJS.ProcessEnv,
  cwd = REPO_ROOT,
  args: readonly string[] = [],
): Promise<IndexerRun> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['bin/grants-indexer.js', 'reindex', '--source', file, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  let peakKiB = 0;
  let polledRss = 0;
  const poll = () => {
    const memory = child.pid === undefined ? null : procMemory(child.pid);
    if (memory !== null) {
      peakKiB = Math.max(peakKiB, memory.hwmKiB);
      polledRss = Math.max(polledRss, memory.rssKiB);
    }
  };
  const timer = setInterval(poll, 20);
  poll();
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(timer);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const indexed = Number(/reindex: indexed (\d+)/.exec(output)?.[1] ?? 0);
  return {
    engine: env.SEARCH_ENGINE ?? 'sqlite',
    exitCode: code,
    indexed,
    seconds,
    recordsPerSecond: indexed / seconds,
    peakRssMiB: Math.max(peakKiB, polledRss) / 1024,
    rssMethod: '/proc/<pid>/status VmHWM polled every 20 ms until exit',
    // The last lines only (the progress lines of a long run are many).
    output: output.trim().split('\n').slice(-5).join('\n'),
  };
}

/** An embedded catalog on disk (DATA_DIR holding catalog.sqlite) with the sample its request mix is drawn from. */
export interface StoredCatalog {
  dataDir: string;
  sample: CatalogSample;
  /** The indexer's run when it was built now; null when it was found built. */
  built: IndexerRun | null;
}

/** Where a catalog is wanted, and which checkout's indexer (bin/grants-indexer.js) builds it. */
export interface CatalogTarget {
  dataDir: string;
  indexerRoot: string;
}

const SAMPLE_FILE = 'sample.json';

/** A sample saved by writeSampleFile, or null when there is none. */
export function readSampleFile(file: string): CatalogSample | null {
  if (!existsSync(file)) return null;
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Omit<CatalogSample, 'documentFrequency'> & {
    documentFrequency: [string, number][];
  };
  return { ...saved, documentFrequency: new Map(saved.documentFrequency) };
}

export const writeSampleFile = (file: string, sample: CatalogSample) =>
  writeFileSync(file, JSON.stringify({ ...sample, documentFrequency: [...sample.documentFrequency] }));

const readSample = (dataDir: string): CatalogSample | null =>
  existsSync(path.join(dataDir, 'catalog.sqlite')) ? readSampleFile(path.join(dataDir, SAMPLE_FILE)) : null;

const writeSample = (dataDir: string, sample: CatalogSample) =>
  writeSampleFile(path.join(dataDir, SAMPLE_FILE), sample);

/**
 * The embedded catalog of `grants` generated grants (seed `seed`) in each target's DATA_DIR, with
 * the sample of the mix saved beside it (sample.json): a target that already holds both is used as
 * it is; for the others the grants are generated once (NDJSON, deleted after) and each target's
 * own indexer indexes them, so every target holds the same grants. A 1,000,000-grant catalog takes
 * minutes to build: callers keep such directories to build them once.
 */
export async function storedCatalogs(
  grants: number,
  seed: number,
  targets: readonly CatalogTarget[],
  env: (dataDir: string) => NodeJS.ProcessEnv,
  say: (line: string) => void,
): Promise<StoredCatalog[]> {
  const found = targets.map((t) => readSample(t.dataDir));
  const missing = targets.filter((_, i) => found[i] === null);
  if (missing.length === 0) return targets.map((t, i) => ({ dataDir: t.dataDir, sample: found[i]!, built: null }));
  for (const t of missing) {
    rmSync(t.dataDir, { recursive: true, force: true });
    mkdirSync(t.dataDir, { recursive: true });
  }
  const source = path.join(missing[0].dataDir, 'source.ndjson');
  say(`generating ${grants.toLocaleString('en-US')} grants (seed ${seed})`);
  const generated = await writeCatalog(source, grants, seed);
  const runs = new Map<string, IndexerRun>();
  try {
    for (const t of missing) {
      say(`  indexing into ${t.dataDir} with the indexer of ${t.indexerRoot}`);
      const run = await runIndexer(source, env(t.dataDir), t.indexerRoot);
      if (run.exitCode !== 0)
        throw new Error(`grants-indexer (${t.indexerRoot}) exited ${run.exitCode}: ${run.output}`);
      say(
        `  ${run.indexed.toLocaleString('en-US')} in ${run.seconds.toFixed(1)} s = ` +
          `${Math.round(run.recordsPerSecond)} records/s`,
      );
      writeSample(t.dataDir, generated.sample);
      runs.set(t.dataDir, run);
    }
  } finally {
    rmSync(source, { force: true });
  }
  // A target found built holds the same grants (same generator and seed); its own sample is used.
  return targets.map((t, i) => ({
    dataDir: t.dataDir,
    sample: found[i] ?? generated.sample,
    built: runs.get(t.dataDir) ?? null,
  }));
}
