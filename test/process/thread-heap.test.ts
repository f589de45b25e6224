// The young generation of the service's threads (src/threads/start.ts THREAD_SEMI_SPACE_MB): the
// main thread keeps the size its command line gives (production's --max-semi-space-size=64), a
// thread started by startThread gets its own, smaller one. Run as a real process from dist/.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { THREAD_SEMI_SPACE_MB } from '../../src/threads/start.js';
import { REPO_ROOT } from '../support/api.js';

const run = promisify(execFile);

describe('process: the young generation of the main thread and of a thread', function () {
  this.timeout(60_000);

  it('the main thread grows to its command line’s 64 MiB semi-spaces, a thread to THREAD_SEMI_SPACE_MB', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--max-semi-space-size=64', 'dist/test/support/youngGeneration.js'],
      { cwd: REPO_ROOT },
    );
    const { main, thread } = JSON.parse(stdout) as { main: number; thread: number };
    // New space is two semi-spaces.
    expect(main, 'the main thread').to.equal(2 * 64);
    expect(thread, 'a thread').to.be.at.most(2 * THREAD_SEMI_SPACE_MB);
  });
});
