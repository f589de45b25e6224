// The API's V8 options are written in three places that must agree: `npm start`, the image's CMD
// and the bench, which starts the API as production does (test/bench/processes.ts).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { API_NODE_OPTIONS } from '../bench/processes.js';
import { REPO_ROOT } from '../support/api.js';

describe('the API process is started with the same V8 options everywhere', () => {
  it('npm start', () => {
    const start = (
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts.start;
    expect(start).to.contain(`exec node ${API_NODE_OPTIONS.join(' ')} dist/src/main.js`);
  });

  it("the image's CMD", () => {
    const cmd = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('CMD '));
    expect(cmd).to.equal(
      `CMD ${JSON.stringify(['node', ...API_NODE_OPTIONS, 'dist/src/main.js']).replaceAll('","', '", "')}`,
    );
  });
});
