// What a hostile tenant writes, where an operator reads it: key and alert names and URLs holding
// terminal escapes, CR and LF, printed by grants-admin; API keys written into request paths in
// any case and percent-encoding, in the access log; webhook targets the address check refuses at
// creation. Real API, real CLI, the log captured as written.
import { expect } from 'chai';
import { runAdmin } from '../../src/cli/admin.js';
import { generateApiKey } from '../../src/subscriptions/apiKeys.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { API_PREFIX } from '../support/catalog.js';
import { logLines } from '../support/logLines.js';

/** What a terminal obeys: C0 (CR, LF and ESC among them), DEL, C1, the bidi controls, the line separators. */
const TERMINAL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A name that recolours, retitles, clears and forges a row, with C1 CSI and a bidi override. */
const HOSTILE =
  'ops\u001b]0;pwned\u0007\u001b[31mRED\u001b[0m\r\nkey_forged  gk_live_zzzz…  "admin"\u009b2J\u202eevil\u0085end';

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** Every %XX decoded, malformed escapes kept. */
const decodeOnce = (text: string): string =>
  text.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
/** Every character percent-encoded (upper-case hex). */
const encodeAll = (text: string): string =>
  [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

describe('hostile tenant text', function () {
  this.timeout(60_000);

  describe('grants-admin prints stored strings inert', () => {
    let api: TestApi;
    before(async () => {
      api = await startTestApi({ WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE: 'false' });
    });
    after(async () => api.stop());

    const admin = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin(
        [...args, '--data-dir', api.dataDir],
        { ...process.env, DATABASE_URL: '' },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
      expect(code, err.join('\n')).to.equal(0);
      return out;
    };

    it('key list, subscription show, audit, alerts list and show: no control character reaches the terminal; the text stays readable', async () => {
      const key = await api.request(
        `${API_PREFIX}/keys`,
        json({ name: HOSTILE, origins: ['https://app.example.com'] }),
      );
      expect(key.status, key.text).to.equal(201);
      const url = 'https://93.184.215.14/\u001b[2J\u009b31m\r\nforged';
      const alert = await api.request(`${API_PREFIX}/alerts`, json({ name: HOSTILE, query: {}, url }));
      expect(alert.status, alert.text).to.equal(201);
      const alertId = alert.body.data.id as string;
      const runs: Record<string, string[]> = {
        'key list': await admin('key', 'list', api.subscriptionId),
        'subscription show': await admin('subscription', 'show', api.subscriptionId),
        audit: await admin('audit', '--subscription', api.subscriptionId),
        'alerts list': await admin('alerts', 'list'),
        'alerts show': await admin('alerts', 'show', alertId),
      };
      for (const [command, lines] of Object.entries(runs)) {
        for (const line of lines)
          expect(TERMINAL_CONTROLS.test(line), `${command}: ${JSON.stringify(line)}`).to.equal(false);
      }
      // Shown, as visible escapes: the operator sees what the tenant wrote.
      for (const command of ['key list', 'subscription show', 'alerts list', 'alerts show']) {
        expect(runs[command].join('\n'), command).to.contain(
          'ops\\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m\\r\\nkey_forged',
        );
      }
      expect(runs['alerts list'].join('\n')).to.contain('\\x1b[2J\\x9b31m\\r\\nforged');
      expect(runs['alerts list'].join('\n')).to.contain('\\u202eevil');
      // The forged row is not a row: every line of key list is one key.
      expect(runs['key list'].filter((l) => l.startsWith('key_forged'))).to.deep.equal([]);
    });

    it('--json: the same values for a JSON reader, no raw control character', async () => {
      for (const args of [
        ['key', 'list', api.subscriptionId],
        ['alerts', 'list'],
        ['audit', '--subscription', api.subscriptionId],
        ['subscription', 'show', api.subscriptionId],
      ]) {
        const out = await admin(...args, '--json');
        expect(out, args.join(' ')).to.have.length(1);
        expect(TERMINAL_CONTROLS.test(out[0]), args.join(' ')).to.equal(false);
        expect(out[0], args.join(' ')).to.contain('\\u009b').and.contain('\\u202e');
        expect(JSON.stringify(JSON.parse(out[0])), args.join(' ')).to.contain(JSON.stringify(HOSTILE));
      }
      const alerts = JSON.parse((await admin('alerts', 'list', '--json'))[0]) as { name: string }[];
      expect(alerts.map((a) => a.name)).to.include(HOSTILE);
    });
  });

  describe('the access log never holds an API key, however the path spells it', () => {
    it('percent-encoded in part or whole, in any case, double-encoded, escaped hex digits: redacted', async () => {
      const { destination, raw } = logLines();
      const api = await startTestApi({ LOG_LEVEL: 'info' }, { logDestination: destination });
      try {
        for (const key of [api.key, generateApiKey()]) {
          const rest = key.slice('gk_live_'.length);
          const spellings = [
            `/${key}`,
            `/gk_live%5F${rest}`,
            `/gk_live%5f${rest}`,
            `/%67k_live_${rest}`,
            `/%47%4B_LIVE_${rest}`,
            `/external/v1/grants/${key.toUpperCase()}`,
            `/external/v1/grants/${key.toLowerCase()}`,
            `${API_PREFIX}/grants/${encodeAll(key)}`,
            `${API_PREFIX}/grants/${encodeAll(key).toLowerCase()}`,
            `/${encodeAll(key.slice(0, 20))}${key.slice(20)}`,
            `/gk_live%255F${rest}`,
            `/${encodeAll(encodeAll(key))}`,
            `/x/%%36%37k_live_${rest}`,
            `/a%2Fb/${key.replace(/_/g, '%5F')}/c`,
          ];
          const ids = new Map<string, string>();
          for (const spelling of spellings)
            ids.set(
              spelling,
              (await api.request(spelling, { key: null, invalidRequest: true })).headers.get('x-request-id')!,
            );
          await new Promise((r) => setTimeout(r, 50));
          const logged = new Map(
            raw
              .map((l) => JSON.parse(l))
              .filter((l) => l.msg === 'request')
              .map((l) => [l.requestId as string, l.path as string]),
          );
          // Each request's line is written, its path with the key redacted (or, past 200 characters, cut before the
          // segment holding it).
          for (const [spelling, id] of ids)
            expect(logged.get(id), spelling)
              .to.be.a('string')
              .and.match(/\[redacted\]|\/…$/);
          // Not the key, nor any 12 characters of it, however often the line is decoded.
          const pieces = Array.from({ length: rest.length - 11 }, (_, i) => rest.slice(i, i + 12).toLowerCase());
          for (const line of raw) {
            let seen = line.toLowerCase();
            for (let round = 0; round < 4; round++) {
              for (const piece of pieces) expect(seen, line).to.not.contain(piece);
              seen = decodeOnce(seen);
            }
          }
        }
        expect(raw.filter((l) => JSON.parse(l).msg === 'request').length).to.be.at.least(28);
      } finally {
        await api.stop();
      }
    });
  });
});
