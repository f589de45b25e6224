// Replays the recorded query cases (fixtures/queries/*.json) against a running deployment.
//
//   GRANTS_API_KEY=<api key> node dist/scripts/replay.js --base-url http://localhost:3000 [--cases DIR]
//
// One line per case, `PASS name` or `FAIL name: reason`, then `replay: N passed, M failed`.
// Exit status: 0 when every case passed, 1 when one failed, 2 on bad usage, 3 when the run stopped
// early: the server could not be reached or refused the key (401), said in one line on stderr.
// A 429 is waited out (Retry-After) and retried. The deployment must serve the catalog the cases were recorded
// from (fixtures/grants.ndjson). checkResponse() is also what test/elasticsearch/search-contract.test.ts uses.
//
// A case that pins its clock (`now`, for `open`) cannot set a deployment's clock: its expectation
// is computed again by the reference model from the catalog (--catalog) at the time of the
// request, and the case passes when the answer matches the model just before or just after it.
import { parseArgs } from 'node:util';
import {
  DEFAULT_CASES_DIR,
  DEFAULT_CATALOG,
  readCaseFiles,
  readCatalog,
  referenceModel,
  type LoadedCase,
  type ReferenceModel,
} from '../fixtures/queries/record.js';
import { isEntryPoint } from '../src/cli/entryPoint.js';
import { unusablePath } from '../src/cli/fileProblems.js';

export const API_PREFIX = '/external/v1';

/** Every case of a directory, each with its recorded expectation; throws when one has none. */
export function loadCases(dir: string = DEFAULT_CASES_DIR): LoadedCase[] {
  return readCaseFiles(dir).map(({ file, value }) => {
    if (value.expect === undefined)
      throw new Error(`${file}: no "expect" recorded yet (run node dist/fixtures/queries/record.js)`);
    return { ...value, file, expect: value.expect };
  });
}

const isSearch = (request: string): boolean => request === '/grants' || request.startsWith('/grants?');

const show = (ids: unknown[], max = 5): string =>
  ids.length <= max ? `[${ids.join(', ')}]` : `[${ids.slice(0, max).join(', ')}, … ${ids.length - max} more]`;

/** Everything about a response that differs from the case's expectation; [] when it passes. */
export function checkResponse(c: LoadedCase, status: number, body: any): string[] {
  const e = c.expect;
  const problems: string[] = [];
  if (status !== e.status) {
    const code = body?.error?.code === undefined ? '' : ` ${body.error.code}`;
    return [`status ${status}${code}, expected ${e.status}${e.error ? ` ${e.error.code}` : ''}`];
  }
  if (e.error !== undefined) {
    if (body?.success !== false) problems.push('success is not false');
    if (body?.error?.code !== e.error.code)
      problems.push(`error.code ${JSON.stringify(body?.error?.code)}, expected ${e.error.code}`);
    const details: unknown = body?.error?.details ?? [];
    const parameters = Array.isArray(details)
      ? details.map((d) => String(d?.parameter)).sort()
      : ['(details is not a list)'];
    if (JSON.stringify(parameters) !== JSON.stringify(e.error.parameters)) {
      problems.push(`error parameters ${show(parameters)}, expected ${show(e.error.parameters)}`);
    }
    return problems;
  }
  if (body?.success !== true) problems.push('success is not true');
  if (!isSearch(c.request)) {
    const id = body?.data?.id;
    if (id !== e.ids[0]) problems.push(`data.id ${JSON.stringify(id)}, expected ${e.ids[0]}`);
    return problems;
  }
  const pagination = body?.pagination ?? {};
  if (pagination.total !== e.total) problems.push(`total ${pagination.total}, expected ${e.total}`);
  if (e.totalPages !== undefined && pagination.totalPages !== e.totalPages) {
    problems.push(`totalPages ${pagination.totalPages}, expected ${e.totalPages}`);
  }
  if (!Array.isArray(body?.data)) return [...problems, 'data is not a list'];
  if (e.fields !== undefined) {
    const wrong = body.data.find((g: object) => JSON.stringify(Object.keys(g ?? {})) !== JSON.stringify(e.fields));
    if (wrong !== undefined)
      problems.push(
        `a grant holds the fields [${Object.keys(wrong ?? {}).join(', ')}], expected [${e.fields.join(', ')}]`,
      );
  }
  if (e.facets === undefined) {
    if (body.facets !== undefined) problems.push('facets present, none asked for');
  } else {
    const got: Record<string, unknown> = body.facets ?? {};
    if (JSON.stringify(Object.keys(got)) !== JSON.stringify(Object.keys(e.facets))) {
      problems.push(`facets [${Object.keys(got).join(', ')}], expected [${Object.keys(e.facets).join(', ')}]`);
    }
    for (const [name, want] of Object.entries(e.facets)) {
      if (JSON.stringify(got[name]) !== JSON.stringify(want)) {
        problems.push(
          `facet ${name} ${JSON.stringify(got[name])?.slice(0, 200)}, expected ${JSON.stringify(want).slice(0, 200)}`,
        );
      }
    }
  }
  const ids: string[] = body.data.map((g: { id?: unknown }) => String(g?.id));
  if (c.compare === 'ordered') {
    if (ids.length !== e.ids.length) problems.push(`${ids.length} results, expected ${e.ids.length}`);
    const at = ids.findIndex((id, i) => id !== e.ids[i]);
    if (at !== -1 && at < e.ids.length)
      problems.push(`order differs at position ${at + 1}: ${ids[at]}, expected ${e.ids[at]}`);
  } else {
    const got = new Set(ids);
    const want = new Set(e.ids);
    const missing = e.ids.filter((id) => !got.has(id));
    const unexpected = ids.filter((id) => !want.has(id));
    if (ids.length !== got.size) problems.push('the page holds an id twice');
    if (missing.length > 0) problems.push(`missing ${show(missing)}`);
    if (unexpected.length > 0) problems.push(`unexpected ${show(unexpected)}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// CLI

const USAGE =
  'Usage: GRANTS_API_KEY=KEY node dist/scripts/replay.js --base-url URL [--key KEY] [--cases DIR] [--catalog FILE] ' +
  '[--max-wait SECONDS]' +
  `

Replays every recorded query case against a running grants API and checks status, totals,
ids, fields, facets and error details. The deployment must serve fixtures/grants.ndjson.
A case recorded at a pinned time ("now", for open=) is checked against the reference model's
answer at the time of the request instead (marked "at request time").

  --base-url URL      the deployment, e.g. http://localhost:3000 (${API_PREFIX} is added
                      unless the URL already ends with it)
  GRANTS_API_KEY      (environment) an API key of an ACTIVE subscription, sent as
                      "Authorization: Bearer KEY"; preferred to --key, which shows the key
                      in the process list (and in npm's banner under npm run)
  --key KEY           the key on the command line, used instead of GRANTS_API_KEY
  --cases DIR         directory of case files (default: fixtures/queries of this checkout)
  --catalog FILE      the catalog the deployment serves, for the cases answered at request
                      time (default: fixtures/grants.ndjson of this checkout)
  --max-wait SECONDS  longest Retry-After to wait out on a 429 (default 60); a longer one,
                      such as a used-up monthly allowance, fails the case
  -h, --help          show this help

Prints "PASS name" or "FAIL name: reason" per case, then "replay: N passed, M failed".
Stops at once, with one line on stderr, when the server cannot be reached or refuses the key.
Exit status: 0 all passed, 1 a case failed, 2 bad usage, 3 stopped (unreachable, or 401).`;

class UsageError extends Error {}

/** A failure that no later case can escape: the server is unreachable or refuses the key. */
class StopReplay extends Error {}

interface Options {
  base: string;
  key: string;
  /** Where the key came from, for messages: --key or GRANTS_API_KEY. */
  keyName: string;
  cases: string;
  catalog: string;
  maxWait: number;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        'base-url': { type: 'string' },
        key: { type: 'string' },
        cases: { type: 'string' },
        catalog: { type: 'string' },
        'max-wait': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const problems: string[] = [];
  const rawBase = values['base-url'];
  let base = '';
  if (rawBase === undefined || rawBase === '') problems.push('--base-url is required');
  else {
    try {
      const url = new URL(rawBase);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
      if (url.search !== '' || url.hash !== '') throw new Error('query');
      base = url.href.replace(/\/+$/, '');
      if (!base.endsWith(API_PREFIX)) base += API_PREFIX;
    } catch {
      problems.push(`--base-url must be an http or https URL without a query (got "${rawBase}")`);
    }
  }
  // The key from the environment keeps it out of the process list and npm's banner; --key wins when both are given.
  const fromFlag = values.key !== undefined;
  const key = values.key ?? env.GRANTS_API_KEY ?? '';
  const keyName = fromFlag ? '--key' : 'GRANTS_API_KEY';
  if (key === '') problems.push('an API key is required: set GRANTS_API_KEY (or give --key)');
  else if (/\s/.test(key)) problems.push(`${keyName} must not contain spaces`);
  const maxWait = values['max-wait'] === undefined ? 60 : Number(values['max-wait']);
  if (!Number.isInteger(maxWait) || maxWait < 0) problems.push('--max-wait must be a whole number of seconds');
  if (problems.length > 0) throw new UsageError(problems.join('; '));
  return {
    base,
    key,
    keyName,
    cases: values.cases ?? DEFAULT_CASES_DIR,
    catalog: values.catalog ?? DEFAULT_CATALOG,
    maxWait,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After in seconds: delta-seconds or an HTTP date; 1 when absent or unreadable. */
function retryAfterSeconds(header: string | null): number {
  if (header === null) return 1;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? 1 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const MAX_RETRIES = 10;

/** GET with the key, waiting out 429s; resolves to the final status and parsed body. */
async function get(options: Options, request: string): Promise<{ status: number; body: unknown }> {
  for (let attempt = 0; ; attempt += 1) {
    let response: Response;
    try {
      response = await fetch(options.base + request, {
        headers: { Authorization: `Bearer ${options.key}`, Accept: 'application/json' },
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why =
        (error as Error).name === 'TimeoutError'
          ? 'no answer within 30 s'
          : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new StopReplay(`cannot reach ${options.base} (${why}); check that the API runs there and --base-url`);
    }
    if (response.status === 401) {
      await response.arrayBuffer();
      throw new StopReplay(`the API refused the key (401 UNAUTHORIZED); check ${options.keyName}`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    if (response.status !== 429 || attempt >= MAX_RETRIES) return { status: response.status, body };
    const wait = retryAfterSeconds(response.headers.get('Retry-After'));
    if (wait > options.maxWait) {
      const code = (body as { error?: { code?: string } } | null)?.error?.code ?? 'RATE_LIMITED';
      throw new Error(`429 ${code} with Retry-After ${wait} s, longer than --max-wait ${options.maxWait} s`);
    }
    process.stderr.write(
      `replay: 429 on ${request.length > 60 ? `${request.slice(0, 60)}…` : request}; waiting ` +
        `${Math.max(wait, 1)} s (Retry-After)\n`,
    );
    await sleep(Math.max(wait, 1) * 1000);
  }
}

export async function runReplay(
  argv: string[],
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let options: Options;
  let cases: LoadedCase[];
  try {
    const parsed = parseOptions(argv, env);
    if (parsed === 'help') {
      out(USAGE);
      return 0;
    }
    options = parsed;
  } catch (error) {
    process.stderr.write(`replay: ${(error as Error).message}; run with --help for the options.\n`);
    return 2;
  }
  const casesProblem = unusablePath(options.cases, 'folder');
  if (casesProblem !== null) {
    process.stderr.write(
      `replay: the cases folder ${options.cases} ${casesProblem}; give --cases a folder of case files ` +
        `(*.json), such as fixtures/queries.\n`,
    );
    return 2;
  }
  try {
    cases = loadCases(options.cases);
  } catch (error) {
    process.stderr.write(
      `replay: a case cannot be used: ${(error as Error).message}; fix or remove that file, or give --cases ` +
        `another folder.\n`,
    );
    return 2;
  }
  let model: ReferenceModel | undefined;
  if (cases.some((c) => c.now !== undefined)) {
    const catalogProblem = unusablePath(options.catalog, 'file');
    if (catalogProblem !== null) {
      process.stderr.write(
        `replay: the catalog file ${options.catalog} ${catalogProblem}; give --catalog the NDJSON catalog ` +
          `the deployment serves (the cases answered at request time need it).\n`,
      );
      return 2;
    }
    try {
      model = referenceModel(readCatalog(options.catalog));
    } catch (error) {
      process.stderr.write(
        `replay: the catalog file ${options.catalog} cannot be used (${(error as Error).message}); give ` +
          `--catalog the NDJSON catalog the deployment serves.\n`,
      );
      return 2;
    }
  }
  let passed = 0;
  let failed = 0;
  for (const c of cases) {
    let problems: string[];
    let note = '';
    try {
      const before = new Date().toISOString();
      const { status, body } = await get(options, c.request);
      const after = new Date().toISOString();
      if (c.now === undefined || model === undefined) {
        problems = checkResponse(c, status, body);
      } else {
        // The deployment answers at its own time: compare with the model's answer at that time.
        const at = (now: string) =>
          checkResponse({ ...c, now, expect: model!.expectationOf({ ...c, now }) }, status, body);
        problems = at(before);
        if (problems.length > 0 && after !== before) problems = at(after).length === 0 ? [] : problems;
        note = ' (at request time)';
      }
    } catch (error) {
      if (error instanceof StopReplay) {
        process.stderr.write(`replay: stopped at ${c.name}: ${error.message}\n`);
        return 3;
      }
      problems = [`request failed: ${(error as Error).message}`];
    }
    if (problems.length === 0) {
      passed += 1;
      out(`PASS ${c.name}${note}`);
    } else {
      failed += 1;
      out(`FAIL ${c.name}${note}: ${problems.join('; ')}`);
    }
  }
  out(`replay: ${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

if (isEntryPoint(import.meta.url)) {
  runReplay(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`replay: ${(error as Error).stack ?? error}\n`);
      process.exitCode = 1;
    },
  );
}
