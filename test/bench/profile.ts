// Summarises a V8 .cpuprofile (node --cpu-prof; npm run bench -- --profile DIR): self time by
// function and by module, and inclusive time of the product's own functions.
//
//   node dist/test/bench/profile.js DIR/CPU.*.cpuprofile [--top N]
import { readFileSync } from 'node:fs';
import { isEntryPoint } from '../../src/cli/entryPoint.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\//, '')
    .replace(/.*\/dist\//, '')
    .replace(/^node:/, 'node:');

function moduleOf(url: string): string {
  if (url === '') return '(native/VM)';
  if (url.startsWith('node:')) return 'node core';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m !== null) return m[1];
  const d = /dist\/(src\/[^/]+|test\/[^/]+|indexer)/.exec(url);
  return d === null ? shortUrl(url) : d[1];
}

export function summarise(profile: CpuProfile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfTime = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  for (const t of selfTime.values()) total += t;
  const idle = [...selfTime]
    .filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)')
    .reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;

  const fnSelf = new Map<string, number>();
  const modSelf = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, t] of selfTime) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    const label =
      `${node.callFrame.functionName || '(anonymous)'} ` +
      `${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    fnSelf.set(label, (fnSelf.get(label) ?? 0) + t);
    const mod = moduleOf(node.callFrame.url);
    modSelf.set(mod, (modSelf.get(mod) ?? 0) + t);
    // Inclusive time of product functions: every distinct src/ frame on the stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      if (!/\/dist\/src\//.test(frame.url)) continue;
      const key = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + t);
    }
  }
  const fmt = (entries: Map<string, number>, n: number) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `  ${((t / busy) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(7)} ms  ${k}`)
      .join('\n');
  return [
    `busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled`,
    'self time by module:',
    fmt(modSelf, 15),
    'self time by function:',
    fmt(fnSelf, top),
    'inclusive time of product functions (dist/src):',
    fmt(inclusive, top),
  ].join('\n');
}

function main(): void {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt === -1 ? 25 : Number(args[topAt + 1]);
  const files = args.filter((a, i) => !a.startsWith('--') && (topAt === -1 || i !== topAt + 1));
  if (files.length === 0) {
    process.stderr.write('usage: node dist/test/bench/profile.js FILE.cpuprofile... [--top N]\n');
    process.exit(2);
  }
  for (const file of files) {
    process.stdout.write(`== ${file}\n${summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top)}\n`);
  }
}

if (isEntryPoint(import.meta.url)) main();
