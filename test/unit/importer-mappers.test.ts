// The importers' pure parts: days in a time zone, day patterns, amounts, the format guess, the
// CSV mapping of one row and the Grants.gov mapping of one record.
import { expect } from 'chai';
import { dayIn, dayPattern, endOfDay, isoDay, startOfDay } from '../../indexer/dates.js';
import { eventInstant, mapCommonGrantsOpportunity } from '../../indexer/formats/commonGrants.js';
import { layoutOf } from '../../indexer/formats/commonGrantsJson.js';
import { mapRow, parseAmount, planMapping } from '../../indexer/formats/csvMapping.js';
import { guessFormat } from '../../indexer/formats/detect.js';
import { bombReason, MAX_RATIO } from '../../indexer/formats/zip.js';
import {
  cut,
  FORECAST,
  mapOpportunity,
  outranks,
  plainText,
  rankOf,
  SYNOPSIS,
  versionNumber,
} from '../../indexer/formats/grantsGov.js';
import { withDayDates } from '../../indexer/importers.js';
import { RejectionLog } from '../../indexer/validation.js';
import { grantStatus } from '../../src/grants/lifecycle.js';

const text = (s: string) => Buffer.from(s);
const fields = (record: Record<string, string | string[]>) =>
  new Map(Object.entries(record).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));

describe('importers: dates', () => {
  it('a date-only deadline is the last millisecond of the day in the zone, on both sides of a clock change', () => {
    // EST, UTC−5
    expect(endOfDay({ year: 2027, month: 1, day: 15 }, 'America/Toronto')).to.equal('2027-01-16T04:59:59.999Z');
    // EDT, UTC−4
    expect(endOfDay({ year: 2027, month: 7, day: 15 }, 'America/Toronto')).to.equal('2027-07-16T03:59:59.999Z');
    // the day clocks spring forward
    expect(endOfDay({ year: 2027, month: 3, day: 14 }, 'America/Toronto')).to.equal('2027-03-15T03:59:59.999Z');
    // the day they fall back
    expect(endOfDay({ year: 2027, month: 11, day: 7 }, 'America/Toronto')).to.equal('2027-11-08T04:59:59.999Z');
    expect(endOfDay({ year: 2027, month: 1, day: 15 }, 'UTC')).to.equal('2027-01-15T23:59:59.999Z');
    expect(endOfDay({ year: 2027, month: 1, day: 15 }, 'America/Vancouver')).to.equal('2027-01-16T07:59:59.999Z');
    expect(startOfDay({ year: 2027, month: 1, day: 15 }, 'America/Toronto')).to.equal('2027-01-15T05:00:00.000Z');
  });

  it('reads ISO days and day patterns, refusing days that do not exist', () => {
    expect(isoDay('2027-01-15')).to.deep.equal({ year: 2027, month: 1, day: 15 });
    expect(isoDay('2027-02-30')).to.equal(null);
    expect(isoDay('2027-01-15T10:00:00Z')).to.equal(null);
    expect(dayIn('03152027', dayPattern('MMDDYYYY')!)).to.deep.equal({ year: 2027, month: 3, day: 15 });
    expect(dayIn('15/03/2027', dayPattern('DD/MM/YYYY')!)).to.deep.equal({ year: 2027, month: 3, day: 15 });
    expect(dayIn('3/5/2027', dayPattern('M/D/YYYY')!)).to.deep.equal({ year: 2027, month: 3, day: 5 });
    expect(dayIn('02292027', dayPattern('MMDDYYYY')!)).to.equal(null);
    expect(dayPattern('MM/YYYY')).to.equal(null);
    expect(dayPattern('DD/DD/YYYY')).to.equal(null);
  });

  it('NDJSON and JSON: a date-only deadline becomes the end of that day, a date-only opensAt its start; other records pass unchanged', () => {
    const record = { number: 1, value: { id: 'a', deadline: '2027-01-15' } };
    expect(withDayDates(record, 'America/Toronto').value).to.deep.equal({
      id: 'a',
      deadline: '2027-01-16T04:59:59.999Z',
    });
    const opening = { number: 1, value: { id: 'a', opensAt: '2027-01-15', deadline: '2027-03-31' } };
    expect(withDayDates(opening, 'America/Toronto').value).to.deep.equal({
      id: 'a',
      opensAt: '2027-01-15T05:00:00.000Z',
      deadline: '2027-04-01T03:59:59.999Z',
    });
    const opensOnly = { number: 1, value: { id: 'a', opensAt: '2027-07-02', deadline: '2027-08-01T00:00:00Z' } };
    expect(withDayDates(opensOnly, 'America/Toronto').value).to.deep.equal({
      id: 'a',
      opensAt: '2027-07-02T04:00:00.000Z',
      deadline: '2027-08-01T00:00:00Z',
    });
    const timed = { number: 1, value: { id: 'a', deadline: '2027-01-15T12:00:00Z', opensAt: '2027-01-01T00:00:00Z' } };
    expect(withDayDates(timed, 'America/Toronto')).to.equal(timed);
    const broken = { number: 1, error: 'not valid JSON' };
    expect(withDayDates(broken, 'UTC')).to.equal(broken);
  });
});

describe('importers: amounts', () => {
  const us = { decimal: '.', thousands: ',' } as const;
  const fr = { decimal: ',', thousands: ' ' } as const;
  it('reads amounts as spreadsheets write them', () => {
    expect(parseAmount('$1,500.00', us)).to.equal(1500);
    expect(parseAmount('1500', us)).to.equal(1500);
    expect(parseAmount('CAD 250,000', us)).to.equal(250000);
    expect(parseAmount('12.5', us)).to.equal(12.5);
    expect(parseAmount('1 500,00 $', fr)).to.equal(1500);
    expect(parseAmount('1\u00a0500,50\u00a0$', fr)).to.equal(1500.5);
  });
  it('refuses what is not an amount', () => {
    expect(parseAmount('about 5k', us)).to.equal(null);
    expect(parseAmount('1,50,0', us)).to.equal(null);
    expect(parseAmount('', us)).to.equal(null);
    expect(parseAmount('1.500,00', us)).to.equal(null);
  });
});

describe('importers: the format guess', () => {
  it('a zip is a Grants.gov extract, whatever its name', () => {
    expect(guessFormat('x.csv', text('PK\u0003\u0004rest'), '')).to.include({ format: 'grants-gov', packing: 'zip' });
  });
  it('an extension decides, .gz looked through', () => {
    expect(guessFormat('a.csv', text('id,title'), 'id,title')).to.include({
      format: 'csv',
      reason: 'the extension .csv',
    });
    expect(guessFormat('a.ndjson.gz', Buffer.from([0x1f, 0x8b, 8]), '{"id":1}')).to.include({
      format: 'ndjson',
      packing: 'gzip',
    });
    expect(guessFormat('extract.XML', text('<?xml'), '<?xml')).to.include({ format: 'grants-gov' });
    expect(guessFormat('a.jsonl', text('{'), '{')).to.include({ format: 'ndjson' });
  });
  it('without a known extension, the first characters decide', () => {
    expect(guessFormat(null, text(' [{"id"'), ' [{"id"')).to.include({
      format: 'json',
      reason: 'the first characters',
    });
    expect(guessFormat('data.txt', text('{"id"'), '{"id"')).to.include({ format: 'ndjson' });
    expect(guessFormat('data', text('\uFEFF<Grants>'), '\uFEFF<Grants>')).to.include({ format: 'grants-gov' });
    expect(guessFormat('data', text('Program,Name'), 'Program,Name')).to.include({ format: 'csv' });
  });

  it('guesses CommonGrants from a key only it has, whatever the JSON extension; our grants stay NDJSON', () => {
    const page = '{"status":200,"message":"Success","items":[{"id":"0f3a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"';
    expect(guessFormat('page.json', text(page), page)).to.include({
      format: 'commongrants',
      reason: 'its first characters (CommonGrants opportunities)',
    });
    const opportunity = '{"id":"0f3a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b","title":"T","status":{"value":"open"}';
    expect(guessFormat('o.ndjson', text(opportunity), opportunity)).to.include({ format: 'commongrants' });
    expect(guessFormat(null, text(`[${opportunity}`), `[${opportunity}`)).to.include({ format: 'commongrants' });
    const ours = '{"id":"g-1","title":"Says \\"keyDates\\": here","status":"OPEN","updatedAt":"2026-01-01T00:00:00Z"}';
    expect(guessFormat('g.ndjson', text(ours), ours)).to.include({ format: 'ndjson' });
    expect(guessFormat('g.csv', text('items,keyDates'), 'items,keyDates')).to.include({ format: 'csv' });
  });
});

describe('importers: the zip bomb guard', () => {
  it('refuses an entry that inflates too far or too much, accepts an extract', () => {
    expect(bombReason({ fileName: 'x.xml', compressedSize: 70e6, uncompressedSize: 1.1e9 })).to.equal(null);
    expect(bombReason({ fileName: 'x.xml', compressedSize: 1000, uncompressedSize: 1000 * (MAX_RATIO + 1) })).to.match(
      /inflate \d+ times .* zip bomb/,
    );
    expect(bombReason({ fileName: 'x.xml', compressedSize: 1e9, uncompressedSize: 5 * 1024 ** 3 })).to.match(
      /more than the 4096\.0 MB allowed/,
    );
  });
});

describe('importers: a CSV row through its mapping', () => {
  const plan = planMapping({
    listSeparator: ';',
    fields: {
      id: 'ID',
      title: 'Name',
      funderType: { column: 'Kind', values: { Federal: 'FEDERAL_GRANT' } },
      targetBeneficiaries: { column: 'Who', values: { 'Non-profit': 'NON_PROFIT', Anyone: null } },
      amountMax: 'Max',
      deadline: { column: 'Closes', dateFormat: 'DD/MM/YYYY', timeZone: 'America/Halifax' },
      isRecurring: 'Again',
      currency: { value: 'CAD' },
    },
  });
  const row = (cells: Record<string, string>) =>
    new Map(
      Object.entries({ ID: 'a-1', Name: 'A', Kind: 'Federal', Who: '', Max: '', Closes: '', Again: '', ...cells }),
    );

  it('maps columns, value maps (any case), lists, constants, amounts, days and booleans', () => {
    const mapped = mapRow(
      row({ Who: 'non-profit; RESEARCHERS;Anyone', Max: '$2,000', Closes: '15/01/2027', Again: 'Yes' }),
      plan,
    );
    expect(mapped).to.deep.equal({
      value: {
        id: 'a-1',
        title: 'A',
        funderType: 'FEDERAL_GRANT',
        targetBeneficiaries: ['NON_PROFIT', 'RESEARCHERS'],
        amountMax: 2000,
        deadline: '2027-01-16T03:59:59.999Z',
        isRecurring: true,
        currency: 'CAD',
      },
      problems: [],
    });
  });

  it('source.name, source.id and source.url gather into source; all empty, it is null', () => {
    const sourced = planMapping({
      fields: { id: 'ID', 'source.name': { value: 'Sheet' }, 'source.id': 'Ref', 'source.url': 'Link' },
    });
    expect(
      mapRow(
        new Map([
          ['ID', 'a'],
          ['Ref', 'r-1'],
          ['Link', ''],
        ]),
        sourced,
      ).value,
    ).to.deep.equal({ id: 'a', source: { name: 'Sheet', id: 'r-1', url: null } });
    const partial = planMapping({ fields: { id: 'ID', 'source.id': 'Ref' } });
    expect(
      mapRow(
        new Map([
          ['ID', 'a'],
          ['Ref', ''],
        ]),
        partial,
      ).value,
    ).to.deep.equal({ id: 'a', source: null });
    expect(
      mapRow(
        new Map([
          ['ID', 'a'],
          ['Ref', 'r-2'],
        ]),
        partial,
      ).value,
    ).to.deep.equal({ id: 'a', source: { name: null, id: 'r-2', url: null } });
  });

  it('empty cells are null (an empty list for a list)', () => {
    const mapped = mapRow(row({}), plan);
    expect(mapped.value).to.include({ amountMax: null, deadline: null, isRecurring: null });
    expect(mapped.value?.targetBeneficiaries).to.deep.equal([]);
  });

  it('reports every cell it cannot read, naming the column and the value', () => {
    const mapped = mapRow(
      row({ Kind: 'Provincial', Who: 'Non-profit;Aliens', Max: 'lots', Closes: '2027-01-15', Again: 'maybe' }),
      plan,
    );
    expect(mapped.value).to.equal(null);
    expect(mapped.problems.map((p) => p.field)).to.deep.equal([
      'funderType',
      'targetBeneficiaries',
      'amountMax',
      'deadline',
      'isRecurring',
    ]);
    expect(mapped.problems[0].reason).to.match(
      /^unknown value "Provincial" in column "Kind": not one of CORPORATE, FEDERAL_GRANT/,
    );
    expect(mapped.problems[0].reason).to.contain('"federal"');
    expect(mapped.problems[2].reason).to.equal('"lots" in column "Max" is not a number');
    expect(mapped.problems[3].reason).to.equal(
      '"2027-01-15" is not a date in the mapping\'s format (DD/MM/YYYY) (column "Closes")',
    );
  });

  it('a mapping that cannot work is refused whole, every problem named', () => {
    expect(() =>
      planMapping({
        fields: { titel: 'Name', deadline: { column: 'C', dateFormat: 'YYYY', timeZone: 'Mars/Olympus' }, id: {} },
      }),
    ).to.throw(
      /fields\.titel: is not a field of a grant.*fields\.deadline: dateFormat "YYYY" needs.*fields\.deadline\.timeZone: "Mars\/Olympus" is not a time zone.*fields\.id: needs either "column" or "value"/,
    );
    expect(() => planMapping({ fields: {} })).to.throw(/the mapping is not valid/);
    expect(() => planMapping({ columns: {} })).to.throw(/must have required property 'fields'/);
  });
});

describe('importers: a Grants.gov record', () => {
  const synopsis = {
    OpportunityID: '42',
    OpportunityTitle: 'Title',
    AgencyName: 'Agency',
    FundingInstrumentType: ['PC', 'CA'],
    EligibleApplicants: ['12', '23'],
    PostDate: '01052027',
    CloseDate: '03152027',
    LastUpdatedDate: '01062027',
    AwardFloor: '0',
    AwardCeiling: '',
    Description: '<p>A &amp; B</p><p>Second&nbsp;para</p>',
    Version: 'Synopsis 2',
  };

  it('maps a synopsis: id, dates in US Eastern, codes, empty and zero amounts as null, HTML as text, the opportunity page', () => {
    const mapped = mapOpportunity(SYNOPSIS, fields(synopsis));
    expect(mapped.problems).to.deep.equal([]);
    expect(mapped.value).to.deep.include({
      id: 'grants-gov-42',
      funder: 'Agency',
      funderType: 'FEDERAL_GRANT',
      fundingType: 'GRANT',
      amountMin: null,
      amountMax: null,
      currency: 'USD',
      deadline: '2027-03-16T03:59:59.000Z',
      applicationUrl: 'https://www.grants.gov/search-results-detail/42',
      eligibleProvinces: [],
      targetBeneficiaries: ['CHARITIES', 'NON_PROFIT', 'SMALL_BUSINESS', 'STARTUPS'],
      createdAt: '2027-01-05T05:00:00.000Z',
      updatedAt: '2027-01-06T05:00:00.000Z',
      description: 'A & B\n\nSecond\u00a0para',
      source: { name: 'Grants.gov', id: '42', url: 'https://www.grants.gov/search-results-detail/42' },
    });
  });

  it('a forecast: its estimated close date as the deadline, its expected posting said in the description', () => {
    const forecast = {
      ...synopsis,
      CloseDate: '',
      EstimatedSynopsisPostDate: '02012027',
      EstimatedSynopsisCloseDate: '05032027',
      FiscalYear: '2027',
      Description: 'Soon.',
    };
    const mapped = mapOpportunity(FORECAST, fields(forecast));
    expect(mapped.value).to.include({ deadline: '2027-05-04T03:59:59.000Z' });
    expect(mapped.value?.description).to.equal(
      'Soon.\n\nForecast: the opportunity is expected to be posted on 2027-02-01 (fiscal year 2027).',
    );
  });

  it('a forecast is a forecasted grant: opensAt is its EstimatedSynopsisPostDate at 00:00 US Eastern', () => {
    const forecast = { ...synopsis, CloseDate: '', EstimatedSynopsisPostDate: '02012027' };
    const mapped = mapOpportunity(FORECAST, fields({ ...forecast, EstimatedSynopsisCloseDate: '05032027' }));
    expect(mapped.problems).to.deep.equal([]);
    const grant = mapped.value as { opensAt: string | null; deadline: string | null };
    expect(grant).to.include({ opensAt: '2027-02-01T05:00:00.000Z', deadline: '2027-05-04T03:59:59.000Z' });
    expect(grantStatus(grant, Date.parse('2027-02-01T04:59:59.999Z'))).to.equal('FORECASTED');
    expect(grantStatus(grant, Date.parse('2027-02-01T05:00:00.000Z'))).to.equal('OPEN');
    // In summer time (EDT, UTC−4).
    expect(mapOpportunity(FORECAST, fields({ ...forecast, EstimatedSynopsisPostDate: '07012027' })).value).to.include({
      opensAt: '2027-07-01T04:00:00.000Z',
      deadline: null,
    });
    // No estimated posting: no opensAt.
    expect(mapOpportunity(FORECAST, fields({ ...forecast, EstimatedSynopsisPostDate: '' })).value).to.include({
      opensAt: null,
    });
    // An estimated close before the estimated posting: the posting is kept, the close dropped.
    expect(mapOpportunity(FORECAST, fields({ ...forecast, EstimatedSynopsisCloseDate: '01152027' })).value).to.include({
      opensAt: '2027-02-01T05:00:00.000Z',
      deadline: null,
    });
  });

  it('a synopsis, posted, has no opensAt: open (or closed) from its posting, never forecasted', () => {
    const grant = mapOpportunity(SYNOPSIS, fields(synopsis)).value as { opensAt: string | null; deadline: string };
    expect(grant.opensAt).to.equal(null);
    // Even before its PostDate.
    expect(grantStatus(grant, Date.parse('2027-01-01T00:00:00.000Z'))).to.equal('OPEN');
    expect(grantStatus(grant, Date.parse('2027-03-17T00:00:00.000Z'))).to.equal('CLOSED');
  });

  it('reports what it cannot map: unknown codes, a procurement contract alone, bad dates, a missing title', () => {
    const mapped = mapOpportunity(
      SYNOPSIS,
      fields({
        ...synopsis,
        OpportunityTitle: '',
        EligibleApplicants: ['12', '77'],
        FundingInstrumentType: 'PC',
        CloseDate: '2027-03-15',
      }),
    );
    expect(mapped.value).to.equal(null);
    expect(mapped.problems).to.deep.equal([
      { field: 'OpportunityTitle', reason: 'is missing' },
      {
        field: 'FundingInstrumentType',
        reason: 'only a procurement contract (PC): a purchase, not funding the catalog lists',
      },
      {
        field: 'EligibleApplicants',
        reason: 'unknown code "77" (known: 00, 01, 02, 04, 05, 06, 07, 08, 11, 12, 13, 20, 21, 22, 23, 25, 99)',
      },
      { field: 'CloseDate', reason: '"2027-03-15" is not a date as MMDDYYYY' },
    ]);
    expect(mapOpportunity(SYNOPSIS, fields({ ...synopsis, FundingInstrumentType: 'X' })).problems[0].reason).to.match(
      /^unknown code "X"/,
    );
  });

  it('a floor above the ceiling keeps the ceiling; a link that is not http(s) gives way to the opportunity page', () => {
    const mapped = mapOpportunity(
      SYNOPSIS,
      fields({ ...synopsis, AwardFloor: '500', AwardCeiling: '100', AdditionalInformationURL: 'javascript:alert(1)' }),
    );
    expect(mapped.value).to.include({
      amountMin: null,
      amountMax: 100,
      applicationUrl: 'https://www.grants.gov/search-results-detail/42',
    });
  });

  it('the latest version wins: a synopsis over a forecast, then the higher Version, then the later update', () => {
    const forecast = rankOf(FORECAST, fields({ Version: 'Forecast 9', LastUpdatedDate: '12312030' }));
    const synopsis1 = rankOf(SYNOPSIS, fields({ Version: 'Synopsis 1', LastUpdatedDate: '01012027' }));
    const synopsis2 = rankOf(SYNOPSIS, fields({ Version: 'Synopsis 2', LastUpdatedDate: '01012026' }));
    expect(outranks(synopsis1, forecast)).to.equal(true);
    expect(outranks(forecast, synopsis1)).to.equal(false);
    expect(outranks(synopsis2, synopsis1)).to.equal(true);
    expect(outranks(synopsis1, synopsis2)).to.equal(false);
    expect(versionNumber('Synopsis 12')).to.equal(12);
    expect(versionNumber(undefined)).to.equal(0);
  });

  it('text helpers: HTML to plain text, cutting at a word', () => {
    expect(plainText('<ul><li>One</li><li>Two &lt;3</li></ul><script>x</script>')).to.equal('* One\n * Two <3');
    expect(cut('alpha beta gamma', 12)).to.equal('alpha beta…');
    expect(cut('short', 12)).to.equal('short');
  });
});

describe('importers: the rejection report', () => {
  it('shows the control characters of a source as escapes: a record cannot rewrite the terminal or forge a report line', () => {
    const lines: string[] = [];
    const sunk: unknown[] = [];
    const log = new RejectionLog(
      (line) => lines.push(line),
      (rejection) => sunk.push(rejection),
    );
    log.reject({
      number: 7,
      where: 'line 8',
      id: 'x\u001b[2J',
      problems: [{ field: 'funderType', reason: 'unknown value "\u001b[31mred\nrejected record 1: forged"' }],
    });
    expect(lines).to.deep.equal([
      'rejected record 7 (line 8, id "x\\u001b[2J"): funderType: unknown value "\\u001b[31mred\\u000arejected ' +
        'record 1: forged"',
    ]);
    expect(sunk).to.have.length(1);
    expect(log.count).to.equal(1);
  });
});

describe('importers: CommonGrants opportunities', () => {
  it('tells the layout from the first value: an array, a list response (an items key), an opportunity', () => {
    expect(layoutOf(' [ {"id": "x"')).to.equal('array');
    expect(layoutOf('{"status":200,"message":"Success","items":[')).to.equal('pages');
    expect(layoutOf('{"paginationInfo":{"items":1},"items":[')).to.equal('pages');
    expect(layoutOf('{"id":"x","customFields":{"items":{"value":1}}}\n{"id"')).to.equal('opportunities');
    expect(layoutOf('{"id":"x","title":"an ite')).to.equal(null);
    expect(() => layoutOf('{"id": nope}')).to.throw();
  });

  it('reads event dates: an offset or Z as given, a time without one in the zone, a day alone as its start or end', () => {
    expect(eventInstant('2027-04-30', '17:00:00Z', 'end', 'America/Toronto')).to.equal('2027-04-30T17:00:00.000Z');
    expect(eventInstant('2027-04-30', '23:59:59.999Z', 'end', 'UTC')).to.equal('2027-04-30T23:59:59.999Z');
    expect(eventInstant('2027-04-30', '17:00:00-07:00', 'end', 'UTC')).to.equal('2027-05-01T00:00:00.000Z');
    expect(eventInstant('2027-04-30', '17:00:00', 'end', 'America/Toronto')).to.equal('2027-04-30T21:00:00.000Z');
    expect(eventInstant('2027-01-15', undefined, 'end', 'America/Toronto')).to.equal('2027-01-16T04:59:59.999Z');
    expect(eventInstant('2027-01-15', undefined, 'start', 'America/Toronto')).to.equal('2027-01-15T05:00:00.000Z');
    expect(eventInstant('2027-02-30', undefined, 'end', 'UTC')).to.equal(null);
    expect(eventInstant('2027-01-15', '25:00:00', 'end', 'UTC')).to.equal(null);
  });

  const base = {
    id: '0f3a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
    title: 'T',
    description: '',
    customFields: { funder: { value: 'F' }, funderType: { value: 'FOUNDATION' }, fundingType: { value: 'GRANT' } },
    createdAt: '2026-01-01T00:00:00Z',
    lastModifiedAt: '2026-01-02T00:00:00Z',
  };

  it('maps applicant types to our beneficiaries, in our order; an unknown type is a problem', () => {
    const mapped = mapCommonGrantsOpportunity(
      {
        ...base,
        acceptedApplicantTypes: [
          { value: 'for_profit_small_business' },
          { value: 'government_tribal' },
          { value: 'custom', customValue: 'Someone' },
        ],
      },
      'UTC',
    );
    expect(mapped.value).to.deep.include({
      targetBeneficiaries: ['INDIGENOUS_COMMUNITIES', 'SMALL_BUSINESS', 'STARTUPS'],
      description: null,
      currency: 'USD',
      id: `commongrants-${base.id}`,
    });
    const unknown = mapCommonGrantsOpportunity({ ...base, acceptedApplicantTypes: [{ value: 'martians' }] }, 'UTC');
    expect(unknown.value).to.equal(null);
    expect(unknown.problems[0]).to.deep.include({ field: 'acceptedApplicantTypes' });
    expect(unknown.problems[0].reason).to.match(/^unknown value "martians"/);
  });

  it('names every problem at once: no id, an amount that is not decimal, two currencies, a date that is not one', () => {
    const mapped = mapCommonGrantsOpportunity(
      {
        ...base,
        id: 'nope',
        funding: {
          minAwardAmount: { amount: '1e5', currency: 'USD' },
          maxAwardAmount: { amount: '10', currency: 'CAD' },
        },
        customFields: { ...base.customFields, currency: { value: 'USD' } },
        keyDates: { closeDate: { eventType: 'singleDate', date: '30/04/2027' } },
      },
      'UTC',
    );
    expect(mapped.value).to.equal(null);
    expect(mapped.problems.map((p) => p.field)).to.deep.equal([
      'id',
      'funding.minAwardAmount.amount',
      'funding',
      'keyDates.closeDate',
    ]);
    expect(mapCommonGrantsOpportunity([1], 'UTC').problems).to.deep.equal([
      { field: '(opportunity)', reason: 'is not a JSON object' },
    ]);
  });
});
