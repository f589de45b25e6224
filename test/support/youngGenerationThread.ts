// A thread started as the service starts its own (src/threads/start.ts): it reports how far its
// young generation grows.
import { parentPort } from 'node:worker_threads';
import { grownNewSpaceMb } from './newSpace.js';

parentPort!.postMessage(grownNewSpaceMb());
