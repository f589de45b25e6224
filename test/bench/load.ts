// Drives one server with autocannon for one request list, recording every response's latency
// itself (autocannon's own histogram has 1 ms resolution) and the server's CPU time per request.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import autocannon from 'autocannon';

export interface LoadSettings {
  /** Origin, e.g. http://127.0.0.1:40123 */
  origin: string;
  paths: string[];
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /** Requests per second over all connections (autocannon overallRate); unset = as fast as possible. */
  overallRate?: number;
  /**
   * Waits, once the load has stopped, until the server (and the engine) are idle before
   * resolving: for servers measured one after another, never for loads run side by side.
   */
  settle?: boolean;
  /** The server process, for its CPU time. */
  serverPid?: number;
  /** The engine's process (the Elasticsearch JVM on this machine), for its CPU time. */
  enginePid?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Latency of every response, milliseconds. */
  latencyMs: { mean: number; p50: number; p90: number; p975: number; p99: number; max: number };
  non2xx: number;
  socketErrors: number;
  timeouts: number;
  /** non-2xx responses plus socket errors (timeouts included). */
  errors: number;
  statusCodes: Record<string, number>;
  bytesPerResponse: number;
  /** Server process CPU (user + system) per response, microseconds; null without a pid. */
  serverCpuUsPerRequest: number | null;
  /** Server process CPU use over the run, in cores (1.0 = one core busy). */
  serverCores: number | null;
  /**
   * The engine process's CPU (user + system) per response, microseconds: the Elasticsearch JVM
   * when it runs on this machine; null otherwise. It serves whoever else uses it meanwhile too.
   */
  engineCpuUsPerRequest?: number | null;
  /** 1-minute load average when the run ended (the machine is shared). */
  loadAverage: number;
  connections: number;
  overallRate: number | null;
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds of a process (and its reaped children are not counted). */
export function processCpuSeconds(pid: number, thread?: number): number | null {
  try {
    // With a thread id, that thread's own CPU (the main thread's id is the pid).
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return null;
  }
}

/**
 * The pid of the Elasticsearch JVM on this machine (its command line names the bootstrap class),
 * or null when none runs here (a remote ELASTICSEARCH_URL) or /proc is unreadable.
 */
export function elasticsearchPid(): number | null {
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (cmdline.includes('org.elasticsearch.bootstrap.Elasticsearch')) return Number(entry);
    }
  } catch {
    // no /proc
  }
  return null;
}

const cpuOf = (pid: number | undefined) => (pid === undefined ? null : processCpuSeconds(pid));
const cpuBetween = (before: number | null, after: number | null) =>
  before !== null && after !== null ? after - before : null;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The figures both load shapes report alike: from the latencies (sorted, ms), the response bytes,
 * the server's CPU seconds over the run (null without a pid), the seconds the rate is taken over
 * and the wall seconds the CPU was spent in.
 */
function commonFigures(
  sorted: Float64Array,
  bytes: number,
  cpu: number | null,
  seconds: number,
  wallSeconds: number,
  engineCpu: number | null,
) {
  const count = sorted.length;
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    requests: count,
    seconds: round(seconds, 3),
    rps: round(count / seconds, 1),
    latencyMs: {
      mean: round(count > 0 ? sum / count : 0, 3),
      p50: round(percentile(sorted, 50), 3),
      p90: round(percentile(sorted, 90), 3),
      p975: round(percentile(sorted, 97.5), 3),
      p99: round(percentile(sorted, 99), 3),
      max: round(count > 0 ? sorted[count - 1] : 0, 3),
    },
    bytesPerResponse: count > 0 ? Math.round(bytes / count) : 0,
    serverCpuUsPerRequest: cpu === null || count === 0 ? null : round((cpu * 1e6) / count, 1),
    serverCores: cpu === null ? null : round(cpu / wallSeconds, 2),
    engineCpuUsPerRequest: engineCpu === null || count === 0 ? null : round((engineCpu * 1e6) / count, 1),
    loadAverage: round(os.loadavg()[0], 2),
  };
}

/**
 * Waits until the process uses under `share` of a core over 250 ms, at most `limitMs`: a server
 * driven at full concurrency still works through the requests it had taken when the load
 * generator stopped (the direct SQLite baseline at 1,000,000 grants for several seconds), and that
 * work would take the cores from the next server measured.
 */
export async function untilIdle(pid: number | undefined, share: number, limitMs: number): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + limitMs;
  let last = processCpuSeconds(pid);
  while (last !== null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = processCpuSeconds(pid);
    if (now === null || now - last < share * 0.25) return;
    last = now;
  }
}

export async function drive(settings: LoadSettings): Promise<LoadResult> {
  const { paths } = settings;
  if (paths.length === 0) throw new Error('no request to send');
  let next = 0;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let bytes = 0;
  const cpuBefore = cpuOf(settings.serverPid);
  const engineCpuBefore = cpuOf(settings.enginePid);
  const wallBefore = process.hrtime.bigint();

  const instance = autocannon({
    url: settings.origin,
    connections: settings.connections,
    duration: settings.durationSeconds,
    timeout: 30,
    headers: settings.headers ?? {},
    ...(settings.overallRate === undefined ? {} : { overallRate: settings.overallRate }),
    requests: [
      {
        method: 'GET',
        // Every request takes the next path of the list, over all connections: a rotating mix.
        setupRequest: (request) => {
          const path = paths[next];
          next = next + 1 === paths.length ? 0 : next + 1;
          return { ...request, path };
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, _status: number, resBytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
    bytes += resBytes;
  });
  const result = await instance;
  const wallSeconds = Number(process.hrtime.bigint() - wallBefore) / 1e9;
  const cpu = cpuBetween(cpuBefore, cpuOf(settings.serverPid));
  const engineCpu = cpuBetween(engineCpuBefore, cpuOf(settings.enginePid));
  if (settings.settle === true) {
    // The requests taken before the end run on, outside the window measured: let them finish before anything else is
    // measured.
    await untilIdle(settings.serverPid, 0.05, 120_000);
    await untilIdle(settings.enginePid, 0.1, 30_000);
  }

  const seconds = result.duration > 0 ? result.duration : wallSeconds;
  const statusCodes: Record<string, number> = {};
  for (const [code, { count: n }] of Object.entries(result.statusCodeStats)) statusCodes[code] = n;
  return {
    ...commonFigures(latencies.slice(0, count).sort(), bytes, cpu, seconds, wallSeconds, engineCpu),
    non2xx: result.non2xx,
    socketErrors: result.errors,
    timeouts: result.timeouts,
    errors: result.non2xx + result.errors,
    statusCodes,
    connections: settings.connections,
    overallRate: settings.overallRate ?? null,
  };
}

/**
 * An evenly paced, open-loop load: one request every 1/rate s, whatever the answers do, on
 * keep-alive connections (as many as needed). Latency is measured from the moment each request
 * was due, so a stall delays every later request and shows in the figures (no coordinated
 * omission). autocannon's overallRate instead lets each connection send its share of a second
 * back to back at the start of the second, which is a burst at full concurrency.
 */
export async function drivePaced(
  settings: Omit<LoadSettings, 'connections' | 'overallRate'> & { rate: number },
): Promise<LoadResult> {
  const { paths, rate } = settings;
  const url = new URL(settings.origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const cpuBefore = cpuOf(settings.serverPid);
  const engineCpuBefore = cpuOf(settings.enginePid);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let non2xx = 0;
  let socketErrors = 0;
  let bytes = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  const intervalNs = BigInt(Math.round(1e9 / rate));
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(settings.durationSeconds * 1e9));
  let next = start;
  let sent = 0;
  const done = new Set<Promise<void>>();

  const send = (due: bigint, path: string) => {
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    const finished = new Promise<void>((resolve) => {
      const req = http.request(
        { agent, host: url.hostname, port: url.port, path, headers: settings.headers ?? {} },
        (res) => {
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - due) / 1e6);
            const code = String(res.statusCode);
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx += 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        socketErrors += 1;
        resolve();
      });
      req.end();
    });
    done.add(finished);
    void finished.then(() => {
      inFlight -= 1;
      done.delete(finished);
    });
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = process.hrtime.bigint();
      while (next <= now && next < end) {
        send(next, paths[sent % paths.length]);
        sent += 1;
        next += intervalNs;
      }
      if (next >= end) return resolve();
      setTimeout(tick, Math.max(0, Number(next - process.hrtime.bigint()) / 1e6 - 0.5));
    };
    tick();
  });
  await Promise.all(done);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  agent.destroy();
  const cpu = cpuBetween(cpuBefore, cpuOf(settings.serverPid));
  const engineCpu = cpuBetween(engineCpuBefore, cpuOf(settings.enginePid));
  return {
    ...commonFigures(Float64Array.from(latencies).sort(), bytes, cpu, seconds, seconds, engineCpu),
    non2xx,
    socketErrors,
    timeouts: 0,
    errors: non2xx + socketErrors,
    statusCodes,
    connections: peakInFlight,
    overallRate: rate,
  };
}
