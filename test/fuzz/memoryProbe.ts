// Loaded into the fuzz's API process (`node --expose-gc --import <this file> dist/src/main.js`;
// nothing of it is in the production build's path): on a message over the IPC channel it runs a
// full garbage collection and answers with the process's memory, so the harness can tell a leak
// (heap still held after a collection) from garbage not yet collected and from the allocator.
// The channel is unreferenced: it never keeps the server alive nor delays its shutdown.
import { readFileSync } from 'node:fs';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';

export interface MemorySample {
  /** Resident set size of the whole process (main thread, search workers, SQLite, allocator). */
  rss: number;
  /** Of which anonymous memory (heaps, malloc: SQLite's page caches) and file pages (code, mapped files). */
  rssAnon: number;
  rssFile: number;
  /** The main isolate's heap in use after the collection, and reserved for it. */
  heapUsed: number;
  heapTotal: number;
  /** Memory held outside the heap by JavaScript objects (Buffers and the like). */
  external: number;
  arrayBuffers: number;
  /** V8's count of native contexts: grows when contexts leak. */
  nativeContexts: number;
}

export interface MemoryRequest {
  probe: 'memory';
  /** Also writes a heap snapshot (after the collection) to this file, for a diff in DevTools. */
  snapshot?: string;
}

const collect = (globalThis as { gc?: (options?: { type: 'major'; execution: 'sync' }) => void }).gc;

if (process.send !== undefined && process.channel !== undefined) {
  process.on('message', (message: MemoryRequest) => {
    if (message?.probe !== 'memory') return;
    if (collect === undefined) {
      process.send!({ error: 'the API was started without --expose-gc' });
      return;
    }
    // Twice: objects with finalizers or weak references are freed only by a second collection.
    collect();
    collect();
    if (message.snapshot !== undefined) writeHeapSnapshot(message.snapshot);
    const usage = process.memoryUsage();
    const status = readFileSync('/proc/self/status', 'utf8');
    const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    const sample: MemorySample = {
      rss: usage.rss,
      rssAnon: kB('RssAnon'),
      rssFile: kB('RssFile'),
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      nativeContexts: getHeapStatistics().number_of_native_contexts,
    };
    process.send!(sample);
  });
  process.channel.unref();
}
