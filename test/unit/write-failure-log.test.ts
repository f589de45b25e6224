// What the usage log says while its writes fail: the first failure, then one line per interval
// with the count since, then one line when writes succeed again (not a line per failed retry).
import { expect } from 'chai';
import type { LogFields, Logger } from '../../src/log.js';
import { WriteFailureLog } from '../../src/subscriptions/writeFailureLog.js';

function recordingLogger(lines: { level: string; msg: string; fields?: LogFields }[]): Logger {
  const at = (level: string) => (msg: string, fields?: LogFields) => void lines.push({ level, msg, fields });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: () => true,
    child: () => logger,
    flush: () => undefined,
  };
  return logger;
}

describe('usage log write failures, as logged', () => {
  it('logs the first failure, then one line every interval with the count since, then the recovery with the totals', () => {
    const lines: { level: string; msg: string; fields?: LogFields }[] = [];
    let now = 1_000;
    const failures = new WriteFailureLog(recordingLogger(lines), 10_000, () => now);
    failures.succeeded();
    expect(lines, 'nothing to say without failures').to.deep.equal([]);
    failures.failed({ rows: 3, reason: 'connection refused' });
    for (let i = 0; i < 49; i++) {
      now += 200;
      failures.failed({ rows: 1, reason: 'connection refused' });
    }
    // 50 failures over 9.8 s: one line.
    expect(lines.map((l) => l.msg)).to.deep.equal(['usage log write failed; rows kept for retry']);
    expect(lines[0]).to.include({ level: 'error' });
    expect(lines[0].fields).to.deep.equal({ rows: 3, reason: 'connection refused' });
    now += 200;
    failures.failed({ rows: 2, reason: 'connection refused' });
    expect(lines).to.have.length(2);
    expect(lines[1].fields).to.include({ failedSinceLastLine: 50, failed: 51, forMs: 10_000, rows: 2 });
    now += 5_000;
    failures.succeeded();
    expect(lines[2]).to.deep.include({
      level: 'info',
      msg: 'usage log writes succeed again; the kept rows are written',
      fields: { failed: 51, forMs: 15_000 },
    });
    // A new outage starts a new count, with its first line at once.
    failures.failed({ rows: 1 });
    expect(lines[3]).to.deep.include({ level: 'error', msg: 'usage log write failed; rows kept for retry' });
    expect(lines).to.have.length(4);
  });
});
