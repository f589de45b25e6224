// A wait given a time limit: the promise's outcome if it settles in time, else what the caller
// says then (a fallback value, or a thrown error). The promise itself goes on.

/** `promise`, or what `otherwise` gives (or throws) if it has not settled within `ms` (Infinity: the promise alone). */
export function within<T>(promise: Promise<T>, ms: number, otherwise: () => T | Promise<T>): Promise<T> {
  if (ms === Number.POSITIVE_INFINITY) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(otherwise());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
