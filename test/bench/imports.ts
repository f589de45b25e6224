// `npm run bench -- --imports`: how fast, and in how much memory, grants-indexer imports each
// format, side by side with reindexing the same grants from NDJSON. Two corpora: the 3,110 real
// programs of fixtures/real-programs/ (NDJSON as shipped, gzipped; our CSV export with its
// mapping; CommonGrants list pages as served), and a synthetic Grants.gov extract of N
// opportunities generated here from the extract's element names (the XML and its zip; the same
// grants as NDJSON, CSV and CommonGrants). Each import is a fresh embedded catalog, the real
// indexer as a child process; records/s and its peak RSS (VmHWM) per run.
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import yazl from 'yazl';
import { Random } from '../../fixtures/generate.js';
import { RealisticText } from '../../fixtures/realisticText.js';
import { FORECAST, mapOpportunity, SYNOPSIS, type RecordKind } from '../../indexer/formats/grantsGov.js';
import { toOpportunity } from '../../src/grants/commonGrants.js';
import { servedGrantJson } from '../../src/grants/lifecycle.js';
import { GRANT_FIELDS, SERVED_FIELDS, type Grant } from '../../src/grants/schema.js';
import { csvHeader, csvRows } from '../../src/http/handlers/exportFormat.js';
import { REPO_ROOT, runIndexer, type IndexerRun } from './catalog.js';
import { cleanEnv } from './processes.js';

export const IMPORTS_HELP = `Usage: npm run bench -- --imports [options]

Imports each format with grants-indexer reindex (embedded engine, a fresh catalog each), side by
side with reindexing the same grants from NDJSON: records/s and the indexer's peak RSS.
Corpora: the 3,110 real programs (fixtures/real-programs/) and a synthetic Grants.gov extract.

Options:
  --opportunities N  opportunities in the synthetic extract (default 100000)
  --seed S           generator seed (default 1)
  --quick            10,000 opportunities
  --out FILE         JSON results (default test/bench/results/imports-<timestamp>.json)
  --keep-temp        keep the temporary directory (the generated files)`;

interface Source {
  corpus: string;
  format: string;
  file: string;
  args: string[];
}

interface Row extends Source {
  bytes: number;
  run: IndexerRun;
}

const PAGE_SIZE = 100;
const CSV_MAPPING = path.join(REPO_ROOT, 'mappings/grants-export-csv.json');
const REAL_PROGRAMS = path.join(REPO_ROOT, 'fixtures/real-programs/programs.ndjson.gz');

/** Writes text to a stream, waiting when it asks to. */
async function put(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function close(out: WriteStream): Promise<void> {
  out.end();
  await once(out, 'finish');
}

/** A grant record with every field (the importers leave out what they do not fill). */
const whole = (record: Record<string, unknown>): Grant =>
  Object.fromEntries(
    GRANT_FIELDS.map((field) => [
      field,
      record[field] ?? (['eligibleProvinces', 'targetBeneficiaries', 'sdgAlignment'].includes(field) ? [] : null),
    ]),
  ) as unknown as Grant;

/** Writers of the same grants in our other formats: NDJSON, our CSV export, CommonGrants list pages. */
class SameGrants {
  private readonly ndjson: WriteStream;
  private readonly csv: WriteStream;
  private readonly commonGrants: WriteStream;
  private page: unknown[] = [];
  private pages = 0;

  constructor(
    readonly dir: string,
    readonly name: string,
    private readonly now: number,
  ) {
    this.ndjson = createWriteStream(this.file('ndjson'));
    this.csv = createWriteStream(this.file('csv'));
    this.commonGrants = createWriteStream(this.file('commongrants'));
    this.csv.write(csvHeader(SERVED_FIELDS));
  }

  file(format: 'ndjson' | 'csv' | 'commongrants'): string {
    return path.join(this.dir, `${this.name}.${format === 'commongrants' ? 'commongrants.json' : format}`);
  }

  async add(grant: Grant): Promise<void> {
    const json = JSON.stringify(grant);
    await put(this.ndjson, `${json}\n`);
    await put(this.csv, csvRows([servedGrantJson(json, this.now)], SERVED_FIELDS));
    this.page.push(toOpportunity(grant, this.now));
    if (this.page.length === PAGE_SIZE) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.page.length === 0) return;
    this.pages += 1;
    await put(
      this.commonGrants,
      `${JSON.stringify({
        status: 200,
        message: 'Success',
        items: this.page,
        paginationInfo: { page: this.pages, pageSize: PAGE_SIZE },
      })}\n`,
    );
    this.page = [];
  }

  async close(): Promise<void> {
    await this.flush();
    await Promise.all([close(this.ndjson), close(this.csv), close(this.commonGrants)]);
  }

  sources(corpus: string): Source[] {
    return [
      { corpus, format: 'ndjson (baseline)', file: this.file('ndjson'), args: [] },
      { corpus, format: 'csv (export mapping)', file: this.file('csv'), args: ['--mapping', CSV_MAPPING] },
      { corpus, format: 'commongrants (list pages)', file: this.file('commongrants'), args: [] },
    ];
  }
}

const xmlText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const mmddyyyy = (date: Date): string =>
  String(date.getUTCMonth() + 1).padStart(2, '0') + String(date.getUTCDate()).padStart(2, '0') + date.getUTCFullYear();

const AGENCIES = [
  'Rural Utilities Service',
  'National Science Foundation',
  'Department of Energy',
  'National Institutes of Health',
  'Environmental Protection Agency',
  'Department of Education',
  'Small Business Administration',
  'Department of Transportation',
];
const ELIGIBLE = ['00', '01', '02', '04', '05', '06', '07', '08', '11', '12', '13', '20', '21', '22', '23', '25', '99'];
const INSTRUMENTS = ['G', 'CA', 'O'];
const DAY = 86_400_000;

/** One synthetic record of the extract: its kind and its elements, in the extract's order. */
function syntheticRecord(
  rng: Random,
  text: RealisticText,
  n: number,
): { kind: RecordKind; fields: Map<string, string[]> } {
  const kind = rng.chance(0.1) ? FORECAST : SYNOPSIS;
  const id = String(400000 + n);
  const posted = new Date(Date.UTC(2026, 0, 1) + rng.int(365) * DAY);
  const closes = new Date(posted.getTime() + (30 + rng.int(180)) * DAY);
  const floor = rng.chance(0.3) ? 0 : rng.range(1, 50) * 1000;
  const ceiling = floor + rng.range(1, 200) * 5000;
  const eligible = [...new Set([rng.pick(ELIGIBLE), rng.pick(ELIGIBLE), rng.pick(ELIGIBLE)])];
  const title =
    `${rng.pick(['Community', 'Rural', 'Research', 'Clean Energy', 'Workforce', 'Health', 'Water'])} ` +
    `${rng.pick(['Grants', 'Program', 'Initiative', 'Cooperative Agreements'])} ${n}`;
  const description =
    `<p>${xmlText(text.describe(rng, `${title} funds projects.`, 'en'))}</p><ul><li>Eligible ` +
    `costs</li><li>Reporting</li></ul>`;
  const fields: [string, string | string[]][] = [
    ['OpportunityID', id],
    ['OpportunityTitle', title],
    ['OpportunityNumber', `SYN-${n}`],
    ['OpportunityCategory', 'D'],
    ['FundingInstrumentType', rng.pick(INSTRUMENTS)],
    ['CategoryOfFundingActivity', 'CD'],
    ['CFDANumbers', `${rng.range(10, 99)}.${rng.range(100, 999)}`],
    ['EligibleApplicants', eligible],
    ['AdditionalInformationOnEligibility', 'See the notice of funding opportunity.'],
    ['AgencyCode', `AG-${rng.int(100)}`],
    ['AgencyName', rng.pick(AGENCIES)],
    ['PostDate', mmddyyyy(posted)],
    [
      kind === FORECAST ? 'EstimatedSynopsisPostDate' : 'CloseDate',
      mmddyyyy(kind === FORECAST ? new Date(posted.getTime() + 60 * DAY) : closes),
    ],
    ...(kind === FORECAST
      ? ([
          ['EstimatedSynopsisCloseDate', mmddyyyy(new Date(closes.getTime() + 60 * DAY))],
          ['FiscalYear', '2027'],
        ] as [string, string][])
      : []),
    ['LastUpdatedDate', mmddyyyy(posted)],
    ['AwardCeiling', String(ceiling)],
    ['AwardFloor', String(floor)],
    ['EstimatedTotalProgramFunding', String(ceiling * 10)],
    ['ExpectedNumberOfAwards', String(rng.range(1, 50))],
    ['Description', description],
    ['Version', kind === FORECAST ? 'Forecast 1' : 'Synopsis 1'],
    ['CostSharingOrMatchingRequirement', rng.chance(0.5) ? 'Yes' : 'No'],
    ['GrantorContactEmail', `program${n % 97}@example.gov`],
    ['AdditionalInformationURL', `https://www.example.gov/programs/${id}`],
  ];
  return { kind, fields: new Map(fields.map(([name, value]) => [name, Array.isArray(value) ? value : [value]])) };
}

/** The record's XML (its values escaped once more: the Description holds HTML, written escaped as Grants.gov does). */
function recordXml(kind: RecordKind, fields: Map<string, string[]>): string {
  let xml = `  <${kind}>\n`;
  for (const [name, values] of fields) for (const value of values) xml += `    <${name}>${xmlText(value)}</${name}>\n`;
  return `${xml}  </${kind}>\n`;
}

/** The synthetic extract (XML and zip) and the same grants in our formats. */
async function writeSyntheticExtract(dir: string, count: number, seed: number, now: number): Promise<Source[]> {
  const rng = new Random(seed);
  const text = new RealisticText();
  const xmlFile = path.join(dir, 'GrantsDBExtract-synthetic.xml');
  const xml = createWriteStream(xmlFile);
  await put(
    xml,
    '<?xml version="1.0" encoding="UTF-8"?>\n<Grants xmlns="http://apply.grants.gov/system/OpportunityDetail-V1.0">\n',
  );
  const same = new SameGrants(dir, 'synthetic', now);
  for (let n = 1; n <= count; n += 1) {
    const { kind, fields } = syntheticRecord(rng, text, n);
    await put(xml, recordXml(kind, fields));
    const mapped = mapOpportunity(kind, fields);
    if (mapped.value === null)
      throw new Error(`synthetic record ${n} does not map: ${JSON.stringify(mapped.problems)}`);
    await same.add(whole(mapped.value));
  }
  await put(xml, '</Grants>\n');
  await close(xml);
  await same.close();

  const zipFile = path.join(dir, 'GrantsDBExtract-synthetic.zip');
  const zip = new yazl.ZipFile();
  zip.addFile(xmlFile, 'GrantsDBExtract-synthetic.xml', { compress: true });
  zip.end();
  const out = createWriteStream(zipFile);
  zip.outputStream.pipe(out);
  await once(out, 'finish');

  const corpus = `synthetic Grants.gov (${count.toLocaleString('en-US')})`;
  const [ndjson, ...others] = same.sources(corpus);
  return [
    ndjson,
    { corpus, format: 'grants-gov (zip)', file: zipFile, args: [] },
    { corpus, format: 'grants-gov (xml)', file: xmlFile, args: [] },
    ...others,
  ];
}

/** The real programs: as shipped (gzipped NDJSON), and the same grants in our formats. */
async function writeRealPrograms(dir: string, now: number): Promise<Source[]> {
  const grants = gunzipSync(readFileSync(REAL_PROGRAMS))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => whole(JSON.parse(line)));
  const same = new SameGrants(dir, 'real-programs', now);
  for (const grant of grants) await same.add(grant);
  await same.close();
  const corpus = `real programs (${grants.length.toLocaleString('en-US')})`;
  const [ndjson, ...others] = same.sources(corpus);
  return [ndjson, { corpus, format: 'ndjson.gz (as shipped)', file: REAL_PROGRAMS, args: [] }, ...others];
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

function table(rows: Row[]): string {
  const baseline = new Map(rows.filter((r) => r.format.startsWith('ndjson (baseline)')).map((r) => [r.corpus, r.run]));
  const lines = [
    '| corpus | format | file MB | records | seconds | records/s | peak RSS MiB | vs NDJSON (records/s, RSS) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const { corpus, format, bytes, run } of rows) {
    const base = baseline.get(corpus)!;
    const versus =
      run === base
        ? '—'
        : `${(run.recordsPerSecond / base.recordsPerSecond).toFixed(2)}×, ` +
          `${(run.peakRssMiB / base.peakRssMiB).toFixed(2)}×`;
    lines.push(
      `| ${corpus} | ${format} | ${mib(bytes)} | ${run.indexed.toLocaleString('en-US')} | ` +
        `${run.seconds.toFixed(1)} | ${Math.round(run.recordsPerSecond).toLocaleString('en-US')} | ` +
        `${run.peakRssMiB.toFixed(0)} | ${versus} |`,
    );
  }
  return lines.join('\n');
}

export async function runImportsBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--imports'),
    options: {
      opportunities: { type: 'string' },
      seed: { type: 'string' },
      quick: { type: 'boolean' },
      out: { type: 'string' },
      'keep-temp': { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help === true) {
    console.log(IMPORTS_HELP);
    return 0;
  }
  const count = Number(values.opportunities ?? (values.quick === true ? 10_000 : 100_000));
  const seed = Number(values.seed ?? 1);
  if (!Number.isInteger(count) || count < 1 || count > 10_000_000)
    throw new Error(`--opportunities must be a whole number from 1 to 10,000,000, not ${values.opportunities}`);
  const now = Date.now();
  const temp = mkdtempSync(path.join(os.tmpdir(), 'grants-bench-imports-'));
  try {
    console.log(
      `generating: the real programs in our formats, a synthetic Grants.gov extract of ` +
        `${count.toLocaleString('en-US')} opportunities (${temp})`,
    );
    const sources = [...(await writeRealPrograms(temp, now)), ...(await writeSyntheticExtract(temp, count, seed, now))];
    const rows: Row[] = [];
    for (const source of sources) {
      const dataDir = path.join(temp, 'data');
      rmSync(dataDir, { recursive: true, force: true });
      mkdirSync(dataDir);
      const run = await runIndexer(
        source.file,
        cleanEnv({ SEARCH_ENGINE: 'sqlite', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
        REPO_ROOT,
        source.args,
      );
      if (run.exitCode !== 0)
        throw new Error(`${source.corpus} ${source.format}: the indexer exited ${run.exitCode}:\n${run.output}`);
      rows.push({ ...source, bytes: statSync(source.file).size, run });
      console.log(
        `${source.corpus}, ${source.format}: ${run.indexed} in ${run.seconds.toFixed(1)} s, peak RSS ` +
          `${run.peakRssMiB.toFixed(0)} MiB`,
      );
    }
    rmSync(path.join(temp, 'data'), { recursive: true, force: true });
    console.log(
      `\n${table(rows)}\n\npeak RSS: ${rows[0].run.rssMethod}; ${os.cpus().length} CPUs, Node ${process.version}`,
    );
    const out =
      values.out ??
      path.join(REPO_ROOT, 'test/bench/results', `imports-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify(
        {
          opportunities: count,
          seed,
          cpus: os.cpus().length,
          node: process.version,
          rows: rows.map(({ file, ...row }) => ({ ...row, file: path.basename(file) })),
        },
        null,
        2,
      )}\n`,
    );
    console.log(`results: ${out}`);
    return 0;
  } finally {
    if (values['keep-temp'] === true) console.log(`kept ${temp}`);
    else rmSync(temp, { recursive: true, force: true });
  }
}
