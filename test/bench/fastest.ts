// The micro-benchmarks' one timing rule: a piece of work run several times, its fastest run kept
// (on a shared machine the fastest is the one least disturbed by the neighbours).

/** The fastest of `runs` runs of `work`, in microseconds. */
export function fastestMicros(work: () => unknown, runs: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best * 1000;
}
