// The entry of a thread started from TypeScript source under tsx (threads.ts): Node 20 does not
// carry a loader's hooks into a worker thread, so this registers tsx, then imports the thread's
// `.ts` module named by its first argument. Never used from the build in dist/.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2]);
