// The logger (pino behind the Logger interface): JSON lines, levels, a child per request carrying
// its id, pino's error serialiser, and secrets redacted by field name and by shape.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createLogger,
  deferredChild,
  describeError,
  logFormatFor,
  REDACTED,
  TOO_DEEP,
  type Logger,
} from '../../src/log.js';
import { newSigningSecret } from '../../src/alerts/model.js';
import { generateApiKey } from '../../src/subscriptions/apiKeys.js';
import { logLines } from '../support/logLines.js';

/** A logger writing into an array of parsed lines. */
function capture(level: 'debug' | 'info' | 'warn' | 'error' | 'silent' = 'debug', secrets: string[] = []) {
  const { destination, lines, raw } = logLines();
  return { log: createLogger(level, { destination, secrets }), lines, raw };
}

describe('logging', () => {
  it('writes one JSON object a line with time, level label and msg, filtered by level', () => {
    const { log, lines } = capture('info');
    log.debug('hidden');
    log.info('shown', { n: 1 });
    log.error('bad');
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([
      ['info', 'shown'],
      ['error', 'bad'],
    ]);
    expect(lines[0].n).to.equal(1);
    expect(lines[0].time).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(log.enabled('debug')).to.equal(false);
    expect(log.enabled('warn')).to.equal(true);
    const silent = capture('silent');
    silent.log.error('nothing');
    expect(silent.lines).to.deep.equal([]);
  });

  it('a child logger carries its bindings (the request id) on every line', () => {
    const { log, lines } = capture();
    const child = log.child({ requestId: 'req_123' });
    child.info('request', { status: 200 });
    child.warn('slow');
    log.info('no request');
    expect(lines.map((l) => l.requestId)).to.deep.equal(['req_123', 'req_123', undefined]);
  });

  it('serialises errors with pino (type, message, stack)', () => {
    const { log, lines } = capture();
    log.error('unhandled error', describeError(new TypeError('boom')));
    log.error('thrown string', describeError('plain'));
    expect(lines[0].err.type).to.equal('TypeError');
    expect(lines[0].err.message).to.equal('boom');
    expect(lines[0].err.stack).to.match(/^TypeError: boom\n\s+at /);
    expect(lines[1].err).to.equal('plain');
  });

  it('redacts authorization fields and anything shaped like an API key, in fields, nested objects, errors and messages', () => {
    const { log, raw, lines } = capture();
    const key = generateApiKey();
    log.info('headers', {
      authorization: `Bearer ${key}`,
      headers: { Authorization: 'Bearer secret-token-xyz' },
      other: 'kept',
    });
    log.info(`a message quoting ${key}`);
    log.warn('field value', { note: `the key ${key} was pasted`, list: [key] });
    log.error('error', describeError(new Error(`bad key ${key}`)));
    log.child({ leaked: key }).info('child');
    const text = raw.join('\n');
    expect(text).not.to.include(key);
    expect(text).not.to.include(key.slice(8));
    expect(text).not.to.include('secret-token-xyz');
    expect(lines[0].authorization).to.equal(REDACTED);
    expect(lines[0].headers.Authorization).to.equal(REDACTED);
    expect(lines[0].other).to.equal('kept');
    expect(lines[1].msg).to.equal(`a message quoting ${REDACTED}`);
    expect(lines[2].list).to.deep.equal([REDACTED]);
    expect(lines[3].err.message).to.equal(`bad key ${REDACTED}`);
    expect(lines[4].leaked).to.equal(REDACTED);
  });

  it('redacts a key in any case and percent-encoding, keeping the text around it; a key spelled only by decoding twice redacts the whole value', () => {
    const { log, raw, lines } = capture();
    const key = generateApiKey();
    const rest = key.slice(8);
    const all = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const spellings = [
      key.toUpperCase(),
      `gk_live%5F${rest}`,
      `%67k_live_${rest}`,
      all(key),
      all(key).toUpperCase(),
      `gk_live%255F${rest}`,
      encodeURIComponent(all(key)),
    ];
    for (const spelled of spellings) log.info(`msg /a/${spelled}/b`, { path: `/a/${spelled}/b` });
    log.info('odd', { path: `/a/%%36%37k_live_${rest}` });
    log.info('kept', { path: '/100%/%zz/%41' });
    for (const [i, spelled] of spellings.entries()) {
      expect(lines[i].path, spelled).to.equal(`/a/${REDACTED}/b`);
      expect(lines[i].msg, spelled).to.equal(`msg /a/${REDACTED}/b`);
    }
    expect(lines[spellings.length].path).to.equal(REDACTED);
    expect(lines[spellings.length + 1].path).to.equal('/100%/%zz/%41');
    expect(raw.join('\n').toLowerCase()).not.to.include(rest.toLowerCase());
  });

  it('writes lines inert for a terminal: no raw control, bidi or separator character, the same value for a JSON reader', () => {
    const { log, raw, lines } = capture();
    const hostile = 'a\u001b[31m\u009b2J\u202eb\u2028c\r\nd\u007f';
    log.info(hostile, { name: hostile });
    expect(raw[0]).not.to.match(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029]/);
    expect(lines[0].name).to.equal(hostile);
    expect(lines[0].msg).to.equal(hostile);
  });

  it('pretty lines (pino-pretty, on a terminal) hold no raw control, bidi or separator character either, and no key', () => {
    const key = generateApiKey();
    const hostile = 'a\u001b[31m\u009b2J\u202eb\u2028c\r\nd';
    // The child runs with this process's flags (tsx's --import when the tests run from source).
    const script = `import { createLogger } from ${JSON.stringify(new URL('../../src/log.js', import.meta.url).href)};
      const log = createLogger('info', { format: 'pretty' });
      log.info(${JSON.stringify(hostile)}, {
        name: ${JSON.stringify(hostile)},
        path: ${JSON.stringify(`/%67k_live_${key.slice(8)}`)},
      });
      log.flush();
      setTimeout(() => process.exit(0), 500);`;
    const dir = mkdtempSync(path.join(tmpdir(), 'grants-log-'));
    const file = path.join(dir, 'pretty.mjs');
    writeFileSync(file, script);
    let out: string;
    try {
      out = execFileSync(process.execPath, [...process.execArgv, file], {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(out).to.contain('INFO').and.contain('\\u009b2J').and.contain(REDACTED);
    expect(out.replace(/\n/g, '')).not.to.match(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029]/);
    expect(out).not.to.contain(key.slice(8));
  });

  it('redacts every secret field (authorization, apiKey, token, secret) and webhook secrets at every depth it walks, and writes nothing deeper', () => {
    const { log, raw, lines } = capture();
    const key = generateApiKey();
    const whsec = newSigningSecret();
    const previous = newSigningSecret();
    const secrets = {
      authorization: `Bearer ${key}`,
      apiKey: 'plain-api-key-value',
      token: 'plain-token-value',
      secret: 'plain-secret-value',
      previousSecret: 'plain-previous-value',
    };
    /** The secret fields under `depth` levels of nesting: { a: { a: … secrets } }. */
    const nested = (depth: number): Record<string, unknown> =>
      depth === 0 ? { ...secrets, kept: 'kept' } : { a: nested(depth - 1) };
    for (let depth = 0; depth <= 4; depth++) log.info(`depth ${depth}`, nested(depth));
    log.info('too deep', { a: nested(5) });
    log.info('in a list', { deliveries: [{ headers: { authorization: `Bearer ${key}` } }] });
    log.warn('shapes', { note: `signed with ${whsec}`, header: `${whsec} ${previous}` });
    log.error('failed', describeError(Object.assign(new Error(`bad ${whsec}`), { secret: 'plain-secret-value' })));
    log.child({ secret: whsec }).info('child');
    const text = raw.join('\n');
    for (const value of [
      key,
      key.slice(8),
      whsec,
      whsec.slice(6),
      previous,
      ...Object.values(secrets).filter((v) => !v.startsWith('Bearer')),
    ]) {
      expect(text).not.to.include(value);
    }
    const at = (line: Record<string, any>, depth: number) =>
      Array.from({ length: depth }).reduce((o: any) => o.a, line);
    for (let depth = 0; depth <= 4; depth++) {
      expect(at(lines[depth], depth)).to.deep.include({
        authorization: REDACTED,
        apiKey: REDACTED,
        token: REDACTED,
        secret: REDACTED,
        previousSecret: REDACTED,
        kept: 'kept',
      });
    }
    expect(at(lines[5], 5)).to.equal(TOO_DEEP);
    expect(lines[6].deliveries).to.deep.equal([{ headers: { authorization: REDACTED } }]);
    expect(lines[7]).to.include({ note: `signed with ${REDACTED}`, header: `${REDACTED} ${REDACTED}` });
    expect(lines[8].err).to.include({ message: `bad ${REDACTED}`, secret: REDACTED });
    expect(lines[9].secret).to.equal(REDACTED);
  });

  it('redacts the configuration secrets (a DEMO_API_KEY of any shape, METRICS_TOKEN) wherever they appear', () => {
    const demoKey = 'Plain-demo_key.not+gk(shaped)0123456789abcdef'.replace(/[.+()]/g, 'x');
    const token = 'metrics-token-0123456789';
    const { log, raw, lines } = capture('debug', [demoKey, token]);
    log.info(`GET /external/v1/grants/${demoKey}`, { path: `/external/v1/grants/${demoKey}`, nested: { t: token } });
    log.child({ k: demoKey }).error('failed', describeError(new Error(`with ${token}`)));
    const text = raw.join('\n');
    expect(text).not.to.include(demoKey);
    expect(text).not.to.include(token);
    expect(lines[0].path).to.equal(`/external/v1/grants/${REDACTED}`);
    // Without them, the same text is not key-shaped and would be written as it is.
    const plain = capture('debug');
    plain.log.info(`GET /external/v1/grants/${demoKey}`);
    expect(plain.raw.join('\n')).to.include(demoKey);
  });

  it('a deferred child writes as the child would, and makes none until a line of an enabled level is written', () => {
    const { log, raw } = capture('warn');
    let made = 0;
    const counting: Logger = { ...log, child: (bindings) => (made++, log.child(bindings)) };
    const deferred = deferredChild(counting, { requestId: 'req_1' });
    deferred.info('filtered out');
    deferred.debug('filtered out');
    expect(deferred.enabled('info')).to.equal(false);
    expect(made).to.equal(0);
    deferred.warn('kept', { n: 1 });
    deferred.error('kept too');
    expect(made).to.equal(1);
    log.child({ requestId: 'req_1' }).warn('kept', { n: 1 });
    const strip = (line: string) => line.replace(/"time":"[^"]*"/, '');
    expect(strip(raw[0])).to.equal(strip(raw[2]));
    expect(JSON.parse(raw[1])).to.include({ requestId: 'req_1', msg: 'kept too' });
  });

  it('writes a field given first as a child writes its binding (the access line without a child)', () => {
    const { log, raw } = capture('info');
    log.child({ requestId: 'req_2' }).info('request', { method: 'GET', status: 200 });
    log.info('request', { requestId: 'req_2', method: 'GET', status: 200 });
    const strip = (line: string) => line.replace(/"time":"[^"]*"/, '');
    expect(strip(raw[1])).to.equal(strip(raw[0]));
  });

  it('is pretty on a terminal and JSON otherwise, unless LOG_FORMAT says which', () => {
    expect(logFormatFor('auto', true)).to.equal('pretty');
    expect(logFormatFor('auto', false)).to.equal('json');
    expect(logFormatFor('json', true)).to.equal('json');
    expect(logFormatFor('pretty', false)).to.equal('pretty');
  });
});
