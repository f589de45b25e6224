// The node options a thread started from source gets: the process's own, less those that load
// tsx (a thread runs a plain JavaScript bundle), in whichever spelling tsx was loaded.
import { expect } from 'chai';
import { withoutTsx } from '../../src/threads/start.js';

describe('unit: the node options of a thread started from source', () => {
  it('drops tsx loaded by name, by entry point or by path, joined by = or as the next argument', () => {
    expect(withoutTsx(['--import=tsx'])).to.deep.equal([]);
    expect(withoutTsx(['--import', 'tsx'])).to.deep.equal([]);
    expect(withoutTsx(['--import=tsx/esm', '--require=tsx/cjs', '--loader', 'tsx'])).to.deep.equal([]);
    expect(
      withoutTsx([
        '--require',
        '/repo/node_modules/tsx/dist/preflight.cjs',
        '--import',
        'file:///repo/node_modules/tsx/dist/loader.mjs',
      ]),
    ).to.deep.equal([]);
  });

  it('keeps every other option, and other preloaded modules, in order', () => {
    expect(
      withoutTsx(['--enable-source-maps', '--import=tsx', '--require', './setup.cjs', '-r', 'tsx', '--no-warnings']),
    ).to.deep.equal(['--enable-source-maps', '--require', './setup.cjs', '--no-warnings']);
    expect(withoutTsx(['--import=./tsxlike.mjs', '--import', '/repo/tsx/hooks.mjs'])).to.deep.equal([
      '--import=./tsxlike.mjs',
      '--import',
      '/repo/tsx/hooks.mjs',
    ]);
    expect(withoutTsx(['--import'])).to.deep.equal(['--import']);
  });
});
