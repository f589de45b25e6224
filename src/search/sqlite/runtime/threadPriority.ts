// The scheduling priority of a search worker or index loader thread. On Linux a nice value belongs
// to a thread (setpriority on "this process" changes the calling thread only), so a worker that
// raises its own nice value leaves the event loop at its priority: when both cores are busy with
// searches, the kernel still runs the event loop first, and cheap requests (/grants/:id, the
// health checks) keep their latency. Elsewhere the call may change the whole process, so it is
// made on Linux only.
import os from 'node:os';

/** Sets the calling thread's nice value (0: unchanged); a refusal leaves it as it was. */
export function lowerThreadPriority(nice: number): void {
  if (nice <= 0 || process.platform !== 'linux') return;
  try {
    os.setPriority(nice);
  } catch {
    // Not permitted here (a sandbox): the thread keeps the process's priority.
  }
}
