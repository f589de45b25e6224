// A log destination for tests: every JSON line a logger writes, kept as written and parsed.
import { Writable } from 'node:stream';

export interface LogLines {
  /** Where the logger writes (createLogger's or the API's log destination). */
  destination: Writable;
  /** Each line as written. */
  raw: string[];
  /** Each line parsed. */
  lines: Record<string, any>[];
}

export function logLines(): LogLines {
  const raw: string[] = [];
  const lines: Record<string, any>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk)
        .split('\n')
        .filter((l) => l !== '')) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { destination, raw, lines };
}
