import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BASE_DATE, generateGrants } from '../../fixtures/generate.js';
import { MAX_WORDS, MIN_WORDS, RealisticText, VOCABULARY_SIZE } from '../../fixtures/realisticText.js';
import {
  BENEFICIARIES,
  COMPLEXITIES,
  CURRENCIES,
  FUNDER_TYPES,
  FUNDING_TYPES,
  GRANT_FIELDS,
  PROVINCES,
  SDGS,
  validateGrant,
  type Grant,
} from '../../src/grants/schema.js';
import { repoPath } from '../../src/repoRoot.js';

// The compiled generator runs from dist/ (this suite needs the build).
const FIXTURE = repoPath('fixtures/grants.ndjson');
const GENERATOR = fileURLToPath(new URL('../../fixtures/generate.js', import.meta.url));
// The command documented in fixtures/README.md: --count 600 --seed 1.
const FIXTURE_COUNT = 600;
const FIXTURE_SEED = 1;

const fixtureText = readFileSync(FIXTURE, 'utf8');
const fixtureLines = fixtureText.split('\n').filter((line) => line !== '');
const fixture: Grant[] = fixtureLines.map((line) => JSON.parse(line) as Grant);

const take = (count: number, seed: number): Grant[] => [...generateGrants(count, seed)];
const ndjson = (grants: readonly Grant[]): string => grants.map((g) => `${JSON.stringify(g)}\n`).join('');

/** Throws with the offending record if any record is invalid or not in canonical form. */
function expectValidCanonical(grants: readonly Grant[]): void {
  for (const record of grants) {
    const result = validateGrant(record);
    if (!result.ok) expect.fail(`${record.id}: ${JSON.stringify(result.problems)}`);
    expect(result.grant, record.id).to.deep.equal(record);
    // Same field order too: the canonical wire form byte for byte.
    expect(JSON.stringify(result.grant), record.id).to.equal(JSON.stringify(record));
    expect(Object.keys(record), record.id).to.deep.equal(GRANT_FIELDS);
  }
}

/** Every value of every enum field must occur at least once. */
function expectEveryEnumValue(grants: readonly Grant[]): void {
  const seen = (values: Iterable<string | null>) => new Set([...values].filter((v): v is string => v !== null));
  const checks: [string, readonly string[], Set<string>][] = [
    ['funderType', FUNDER_TYPES, seen(grants.map((g) => g.funderType))],
    ['fundingType', FUNDING_TYPES, seen(grants.map((g) => g.fundingType))],
    ['currency', CURRENCIES, seen(grants.map((g) => g.currency))],
    ['applicationComplexity', COMPLEXITIES, seen(grants.map((g) => g.applicationComplexity))],
    ['eligibleProvinces', PROVINCES, seen(grants.flatMap((g) => g.eligibleProvinces))],
    ['targetBeneficiaries', BENEFICIARIES, seen(grants.flatMap((g) => g.targetBeneficiaries))],
    ['sdgAlignment', SDGS, seen(grants.flatMap((g) => g.sdgAlignment))],
  ];
  for (const [field, values, present] of checks) {
    const missing = values.filter((v) => !present.has(v));
    expect(missing, `${field} values missing`).to.deep.equal([]);
  }
}

describe('fixtures/grants.ndjson', () => {
  it('holds at least 500 records, one JSON object per line', () => {
    expect(fixture.length).to.be.at.least(500);
    expect(fixtureText.endsWith('\n')).to.equal(true);
  });

  it('is exactly the output of the documented command', () => {
    expect(fixtureText).to.equal(ndjson(take(FIXTURE_COUNT, FIXTURE_SEED)));
  });

  it('has only valid records, already in canonical form', () => {
    expectValidCanonical(fixture);
  });

  it('has unique ids', () => {
    expect(new Set(fixture.map((g) => g.id)).size).to.equal(fixture.length);
  });

  it('contains every value of every enum field', () => {
    expectEveryEnumValue(fixture);
  });

  it('gives each funder a single funder type and currency', () => {
    const byFunder = new Map<string, string>();
    for (const g of fixture) {
      const key = `${g.funderType}/${g.currency}`;
      const previous = byFunder.get(g.funder);
      if (previous !== undefined) expect(key, g.funder).to.equal(previous);
      byFunder.set(g.funder, key);
    }
    expect(byFunder.size).to.be.at.least(40);
  });

  it('has both currencies', () => {
    expect(fixture.some((g) => g.currency === 'CAD')).to.equal(true);
    expect(fixture.some((g) => g.currency === 'USD')).to.equal(true);
  });

  it('has amounts with only a minimum, only a maximum, both and neither, never min > max', () => {
    expect(fixture.filter((g) => g.amountMin === null && g.amountMax !== null)).to.not.be.empty;
    expect(fixture.filter((g) => g.amountMin !== null && g.amountMax === null)).to.not.be.empty;
    expect(fixture.filter((g) => g.amountMin === null && g.amountMax === null)).to.not.be.empty;
    expect(fixture.filter((g) => g.amountMin !== null && g.amountMax !== null)).to.not.be.empty;
    for (const g of fixture) {
      if (g.amountMin !== null && g.amountMax !== null) expect(g.amountMin, g.id).to.be.at.most(g.amountMax);
    }
  });

  it('has null, past and future deadlines, and deadlines shared by several grants', () => {
    const base = Date.parse(BASE_DATE);
    expect(fixture.filter((g) => g.deadline === null)).to.not.be.empty;
    expect(fixture.filter((g) => g.deadline !== null && Date.parse(g.deadline) < base)).to.not.be.empty;
    expect(fixture.filter((g) => g.deadline !== null && Date.parse(g.deadline) > base)).to.not.be.empty;
    const perDeadline = new Map<string, number>();
    for (const g of fixture)
      if (g.deadline !== null) perDeadline.set(g.deadline, (perDeadline.get(g.deadline) ?? 0) + 1);
    expect(Math.max(...perDeadline.values())).to.be.at.least(3);
  });

  it('has createdAt ≤ updatedAt', () => {
    for (const g of fixture) expect(Date.parse(g.createdAt), g.id).to.be.at.most(Date.parse(g.updatedAt));
  });

  it('has accented French words (Québec, Montréal) in titles and in descriptions', () => {
    for (const word of ['Québec', 'Montréal']) {
      expect(
        fixture.some((g) => g.title.includes(word)),
        `${word} in a title`,
      ).to.equal(true);
      expect(
        fixture.some((g) => g.description?.includes(word) === true),
        `${word} in a description`,
      ).to.equal(true);
    }
  });

  it('has some null applicationUrl, applicationComplexity, isRecurring and description', () => {
    expect(fixture.some((g) => g.applicationUrl === null)).to.equal(true);
    expect(fixture.some((g) => g.applicationComplexity === null)).to.equal(true);
    expect(fixture.some((g) => g.isRecurring === null)).to.equal(true);
    expect(fixture.some((g) => g.description === null)).to.equal(true);
  });
});

describe('fixtures generator', () => {
  it('is deterministic: the same seed gives identical output', () => {
    expect(ndjson(take(300, 42))).to.equal(ndjson(take(300, 42)));
  });

  it('gives different output for a different seed', () => {
    const a = take(300, 42);
    const b = take(300, 43);
    expect(ndjson(a)).to.not.equal(ndjson(b));
    expect(a.filter((g, i) => g.id === b[i]?.id).length).to.be.below(10);
  });

  it('is prefix-stable: the first n records do not depend on the count', () => {
    expect(ndjson(take(100, 9))).to.equal(ndjson(take(400, 9).slice(0, 100)));
  });

  it('generates 2,000 valid, canonical records with unique ids', () => {
    const grants = take(2000, 2026);
    expect(grants).to.have.length(2000);
    expectValidCanonical(grants);
    expect(new Set(grants.map((g) => g.id)).size).to.equal(2000);
    expectEveryEnumValue(grants);
  });

  it('covers every enum value in any window of 500 consecutive records', () => {
    const grants = take(2000, 5);
    for (const start of [0, 1, 137, 249, 250, 1011, 1500]) expectEveryEnumValue(grants.slice(start, start + 500));
  });

  it('rejects a bad count', () => {
    expect(() => take(-1, 1)).to.throw(RangeError);
    expect(() => take(1.5, 1)).to.throw(RangeError);
  });

  describe('realistic text', () => {
    const realistic = (count: number, seed: number): Grant[] => [...generateGrants(count, seed, 'realistic')];
    const wordCount = (text: string) => text.split(' ').length;

    it('changes only the descriptions, each opening with the short one', () => {
      const short = take(500, 11);
      const long = realistic(500, 11);
      expectValidCanonical(long);
      long.forEach((grant, i) => {
        expect({ ...grant, description: null }, grant.id).to.deep.equal({ ...short[i], description: null });
        if (short[i].description === null) expect(grant.description, grant.id).to.equal(null);
        else expect(grant.description!.startsWith(short[i].description!), grant.id).to.equal(true);
      });
    });

    it('runs to 80–400 words, spread over the whole range', () => {
      const counts = realistic(2000, 4).flatMap((g) => (g.description === null ? [] : [wordCount(g.description)]));
      // Each of the 321 lengths is drawn about 6 times in 2,000 records: both ends are reached, or nearly.
      expect(Math.min(...counts)).to.be.within(MIN_WORDS, MIN_WORDS + 3);
      expect(Math.max(...counts)).to.be.within(MAX_WORDS - 3, MAX_WORDS);
      const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
      expect(mean).to.be.within(200, 280);
    });

    it('draws words Zipfian over tens of thousands of distinct words', () => {
      const frequency = new Map<string, number>();
      for (const grant of realistic(2000, 8)) {
        for (const word of (grant.description ?? '').toLowerCase().match(/[\p{L}’'-]+/gu) ?? [])
          frequency.set(word, (frequency.get(word) ?? 0) + 1);
      }
      const ranked = [...frequency.values()].sort((a, b) => b - a);
      expect(ranked.length).to.be.above(20_000);
      // Zipf (exponent 1), blurred by the two languages and the opening sentences: the 10th word several
      // times rarer than the first, the 100th tens of times.
      expect(ranked[0] / ranked[9]).to.be.within(5, 20);
      expect(ranked[0] / ranked[99]).to.be.within(20, 200);
      expect(new RealisticText().vocabulary('en')).to.have.length(VOCABULARY_SIZE);
    });

    it('is deterministic and prefix-stable, and bilingual', () => {
      expect(ndjson(realistic(100, 9))).to.equal(ndjson(realistic(300, 9).slice(0, 100)));
      const text = realistic(500, 9)
        .map((g) => g.description ?? '')
        .join(' ');
      expect(text).to.match(/ de la /);
      expect(text).to.match(/ of the /);
    });

    it('is what the CLI writes with --text realistic', () => {
      const result = spawnSync(process.execPath, [GENERATOR, '--count', '20', '--seed', '3', '--text', 'realistic'], {
        encoding: 'utf8',
      });
      expect(result.status).to.equal(0);
      expect(result.stdout).to.equal(ndjson(realistic(20, 3)));
    });
  });

  describe('CLI', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [GENERATOR, ...args], { encoding: 'utf8' });

    it('streams the same records to stdout', () => {
      const result = run('--count', '50', '--seed', '3');
      expect(result.status).to.equal(0);
      expect(result.stdout).to.equal(ndjson(take(50, 3)));
    });

    it('prints help with --help', () => {
      const result = run('--help');
      expect(result.status).to.equal(0);
      expect(result.stdout).to.contain('--count');
      expect(result.stdout).to.contain('--seed');
      expect(result.stdout).to.contain('--out');
    });

    for (const args of [
      ['--text', 'long'],
      ['--count', 'many'],
      ['--seed', '-1'],
      ['--seed', '4294967296'],
      ['--bogus'],
      ['positional'],
    ]) {
      it(`exits 2 with a message on bad arguments: ${args.join(' ')}`, () => {
        const result = run(...args);
        expect(result.status).to.equal(2);
        expect(result.stdout).to.equal('');
        expect(result.stderr).to.match(/^generate: .+/);
      });
    }
  });
});
