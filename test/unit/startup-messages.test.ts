// What a start says on the terminal (src/startupMessages.ts): each failure one sentence with what
// went wrong and what to do; the demo key hint a command that can be pasted as it is.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { demoKeyHint, keyCreateCommand, startupFailureSentence } from '../../src/startupMessages.js';

const config = loadConfig({
  PORT: '8080',
  HOST: '10.1.2.3',
  DATA_DIR: '/srv/grants data',
  SEED_FILE: '/srv/seed.ndjson',
});

const systemError = (code: string, fields: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${code}: something`), { code, ...fields });

describe('unit: start-up messages', function () {
  const cases: [string, unknown, RegExp][] = [
    [
      'port in use',
      systemError('EADDRINUSE', { syscall: 'listen' }),
      /port 8080 on 10\.1\.2\.3 is already in use by another program; stop that program or set PORT to a free port\.$/,
    ],
    [
      'port not allowed',
      systemError('EACCES', { syscall: 'listen' }),
      /this user may not listen on port 8080 on 10\.1\.2\.3; set PORT to 1024 or above\.$/,
    ],
    [
      'address not here',
      systemError('EADDRNOTAVAIL', { syscall: 'listen' }),
      /HOST 10\.1\.2\.3 is not an address of this machine; set HOST/,
    ],
    ['host unknown', systemError('ENOTFOUND', { syscall: 'getaddrinfo' }), /HOST 10\.1\.2\.3 does not resolve/],
    [
      'DATA_DIR permission',
      systemError('EACCES', { syscall: 'mkdir', path: '/srv/grants data' }),
      /DATA_DIR \/srv\/grants data cannot be used \(permission denied\); set DATA_DIR to a folder this user can read and write\.$/,
    ],
    [
      'a file inside DATA_DIR',
      systemError('EISDIR', { syscall: 'open', path: '/srv/grants data/catalog.sqlite' }),
      /DATA_DIR \/srv\/grants data cannot be used \(EISDIR: something\); set DATA_DIR/,
    ],
    [
      'not a database',
      systemError('SQLITE_NOTADB'),
      /DATA_DIR \/srv\/grants data cannot be used \(a file there is not a SQLite database\); move that file away/,
    ],
    [
      'read-only database',
      systemError('SQLITE_READONLY_DBMOVED'),
      /cannot be used \(its database files are read-only\)/,
    ],
    [
      'seed file missing',
      systemError('ENOENT', { syscall: 'open', path: '/srv/seed.ndjson' }),
      /SEED_FILE \/srv\/seed\.ndjson cannot be read \(no such file\); set SEED_FILE .* or SEED_CATALOG=false/,
    ],
    [
      'anything else',
      new Error('the engine said no\n    at somewhere (file.js:1:2)'),
      /: the engine said no; run with LOG_LEVEL=debug to see the details\.$/,
    ],
  ];
  for (const [name, error, expected] of cases) {
    it(`${name}: one line, "grants API cannot start: …"`, function () {
      const sentence = startupFailureSentence(error, config);
      expect(sentence).to.match(/^grants API cannot start: /);
      expect(sentence).to.match(expected);
      expect(sentence).not.to.contain('\n');
    });
  }

  it('without a configuration (it could not be read), an error is still one plain line', function () {
    expect(startupFailureSentence(systemError('EADDRINUSE', { syscall: 'listen' }), null)).to.equal(
      'grants API cannot start: EADDRINUSE: something; run with LOG_LEVEL=debug to see the details.',
    );
  });

  it('the key command quotes a DATA_DIR with spaces, so it can be pasted as printed', function () {
    expect(keyCreateCommand('sub_abc', '/srv/grants data')).to.equal(
      `DATA_DIR='/srv/grants data' npx grants-admin key create sub_abc`,
    );
    expect(keyCreateCommand('sub_abc', '/srv/data')).to.equal('DATA_DIR=/srv/data npx grants-admin key create sub_abc');
    expect(demoKeyHint('sub_abc', '/srv/data')).to.match(
      /^No key of the demo subscription sub_abc .*: DATA_DIR=\/srv\/data npx grants-admin key create sub_abc\n$/,
    );
  });
});
