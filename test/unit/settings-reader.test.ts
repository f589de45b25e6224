// The environment read through the settings table: each kind reads its text strictly (what the
// guide's table promises), defaults fill what is unset, and each setting that does not fit is one
// problem, in the table's order.
import { expect } from 'chai';
import { readSettings, SETTINGS_SCHEMA } from '../../src/settingsReader.js';
import { SETTINGS } from '../../src/settings.js';

describe('unit: settingsReader (the environment against the settings schema)', () => {
  it('fills every default and reads nothing but the table', () => {
    const { values, problems } = readSettings({ UNKNOWN_SETTING: 'x' });
    expect(problems).to.deep.equal([]);
    expect(Object.keys(values).sort()).to.deep.equal(Object.keys(SETTINGS).sort());
    expect(values).to.include({
      PORT: 3000,
      SEED_CATALOG: true,
      LOG_LEVEL: 'info',
      REDIS_URL: null,
      DEMO_API_KEY: null,
    });
    expect(values.CORS_ORIGINS).to.deep.equal([]);
  });

  it('an integer is digits only: no sign, fraction, exponent or hexadecimal (which JSON Schema coercion would take)', () => {
    for (const text of ['1e3', '5.0', '+5', '0x10', '-1']) {
      expect(readSettings({ PORT: text }).problems, text).to.deep.equal([
        `PORT must be an integer from 0 to 65535 (got "${text}")`,
      ]);
    }
    expect(readSettings({ PORT: ' 0080 ' }).values.PORT).to.equal(80);
  });

  it('a boolean is one of the words 1/0, true/false, yes/no, on/off in any case', () => {
    expect(
      ['1', 'TRUE', 'Yes', 'on'].map((text) => readSettings({ METRICS_PUBLIC: text }).values.METRICS_PUBLIC),
    ).to.deep.equal([true, true, true, true]);
    expect(
      ['0', 'False', 'NO', 'off'].map((text) => readSettings({ SEED_CATALOG: text }).values.SEED_CATALOG),
    ).to.deep.equal([false, false, false, false]);
    expect(readSettings({ SEED_CATALOG: 'Maybe' }).problems).to.deep.equal([
      'SEED_CATALOG must be true or false (got "maybe")',
    ]);
  });

  it('a blank value is unset: the default applies', () => {
    expect(readSettings({ PORT: '   ', ELASTICSEARCH_URL: '' }).values).to.include({
      PORT: 3000,
      ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
    });
  });

  it("lists problems one per setting, in the table's order, with the defaults in place of numbers and words that do not fit", () => {
    const { values, problems } = readSettings({
      SECRETS_KEY_PREVIOUS: 'a,b',
      LOG_LEVEL: 'loud',
      PORT: 'x',
      DATABASE_URL: 'mysql://u:hunter22@h/db',
    });
    expect(problems).to.deep.equal([
      'PORT must be an integer from 0 to 65535 (got "x")',
      'DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)',
      'LOG_LEVEL must be one of debug, info, warn, error, silent (got "loud")',
      'SECRETS_KEY_PREVIOUS must list base64 keys of 32 bytes, comma-separated',
    ]);
    expect(values).to.include({ PORT: 3000, LOG_LEVEL: 'info' });
  });

  it('a compression level is not read while COMPRESSION is off', () => {
    expect(readSettings({ COMPRESSION: 'off', COMPRESSION_GZIP_LEVEL: '99' }).problems).to.deep.equal([]);
    expect(readSettings({ COMPRESSION_GZIP_LEVEL: '99' }).problems).to.deep.equal([
      'COMPRESSION_GZIP_LEVEL must be an integer from 1 to 9 (got "99")',
    ]);
  });

  it('the schema describes each setting: its type, bounds or values, default and meaning', () => {
    const properties = SETTINGS_SCHEMA.properties as Record<string, Record<string, unknown>>;
    expect(properties.PORT).to.deep.equal({
      description: 'HTTP port',
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      default: 3000,
    });
    expect(properties.LOG_FORMAT)
      .to.include({ type: 'string', default: 'auto' })
      .and.to.have.deep.property('enum', ['auto', 'json', 'pretty']);
    expect(Object.values(properties).every((p) => typeof p.description === 'string' && p.description !== '')).to.equal(
      true,
    );
  });
});
