// The rejects file of --skip-invalid: one JSON line per rejected record (where it was, its id,
// every problem, the record as the source held it), so that nothing skipped is lost. Created at
// the first rejection only.
import { closeSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Rejection } from './validation.js';

export class RejectsReport {
  private fd: number | null = null;
  count = 0;
  constructor(readonly path: string) {}

  readonly write = (rejection: Rejection): void => {
    this.fd ??= openSync(this.path, 'w', 0o600);
    this.count += 1;
    const line = {
      record: rejection.number,
      where: rejection.where ?? null,
      id: rejection.id,
      problems: rejection.problems,
      source: rejection.raw ?? null,
    };
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  };

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The default place of the rejects file: the system's temporary folder, named for the time of the run. */
export const defaultRejectsPath = (now: Date): string =>
  path.join(tmpdir(), `grants-indexer-rejects-${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}.ndjson`);
