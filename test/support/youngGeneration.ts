// Run as a process by test/process/thread-heap.test.ts (with the main thread's V8 options): how
// far the young generation grows in the main thread and in a thread started by startThread, in
// MiB, as one JSON line on stdout.
import { once } from 'node:events';
import { besideModule, startThread } from '../../src/threads/start.js';
import { grownNewSpaceMb } from './newSpace.js';

const main = grownNewSpaceMb();
const worker = startThread(besideModule(import.meta.url, 'youngGenerationThread'), null);
const [thread] = (await once(worker, 'message')) as [number];
await worker.terminate();
process.stdout.write(`${JSON.stringify({ main, thread })}\n`);
