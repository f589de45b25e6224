// fast-check arbitraries of HTTP requests to the API: every route of the route table (and paths
// beside it), every method, query strings built from the endpoints' own parameter specs (values
// valid, near the bounds and hostile) or from noise, and headers a partner, a browser or an
// attacker might send. Nothing here knows what the answer should be; the harness checks the rules
// that hold for every answer. Among them, MCP tool calls whose arguments are hostile: nested up to
// 20,000 deep, no JSON object, any JSON, or with bytes that are not UTF-8.
import fc from 'fast-check';
import { GRANT_SEARCH_PARAMS } from '../../src/http/parameters/grantSearchParams.js';
import type { ParamSpec, ParamSpecs } from '../../src/http/parameters/queryParams.js';
import { API_PREFIX, ROUTES } from '../../src/http/routeTable.js';
import { USAGE_PARAMS } from '../../src/http/handlers/subscription.js';
import { MCP_TOOL_NAMES } from '../../src/http/openapi/mcpDocument.js';

export interface FuzzRequest {
  method: string;
  /** Path and query as sent on the request line (already percent-encoded where it must be). */
  target: string;
  headers: Record<string, string>;
  /** The body, sent as it is (the MCP tool calls). */
  body?: Buffer;
}

/** Which key the request carries. */
export type KeyChoice = 'valid' | 'unknown' | 'malformed' | 'none' | 'basic';

export interface FuzzKeys {
  valid: string;
}

const SPECS: ParamSpecs = { ...GRANT_SEARCH_PARAMS, ...USAGE_PARAMS };
const PARAM_NAMES = Object.keys(SPECS);

/** Text of any code points, including unpaired surrogates, controls and very long runs. */
const anyText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%zz',
    '%00',
    '%ff',
    '%u0041',
    '\u0000',
    '\ud800',
    '💸',
    'Québec',
    "' OR 1=1 --",
    '"*"',
    'NEAR(a b)',
    'a*',
    '-',
    '^',
    '(',
    ')',
    '{}',
    '[]',
    '__proto__',
    'constructor',
  ),
  fc.nat({ max: 9000 }).map((n) => 'x'.repeat(n)),
);

const numberish = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom(
    '0',
    '-0',
    '1',
    '-1',
    '01',
    '1.0',
    '1e3',
    '1e309',
    '0x10',
    '9'.repeat(40),
    'NaN',
    'Infinity',
    ' 1',
    '1 ',
    '+1',
    '100',
    '101',
    '10000',
    '500',
    '50',
  ),
);

const dateish = fc.oneof(
  fc
    .tuple(
      fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
      fc.constantFrom(10, 19, 24),
    )
    .map(([date, length]) => date.toISOString().slice(0, length)),
  fc.constantFrom(
    '2025-01-01',
    '2025-02-30',
    '2025-13-01',
    '2025-1-1',
    '2025-01-01T00:00:00Z',
    '2025-01-01T25:00:00Z',
    '0000-00-00',
    '99999-01-01',
    'yesterday',
    'now',
  ),
);

/** Values for one parameter: mostly shaped by its spec (valid, near its bounds), sometimes anything. */
function valueFor(spec: ParamSpec): fc.Arbitrary<string> {
  const shaped: fc.Arbitrary<string> = (() => {
    switch (spec.kind) {
      case 'enum':
      case 'enumArray': {
        const one = fc.oneof(
          fc.constantFrom(...spec.values),
          fc.constantFrom(...spec.values).map((v) => v.toLowerCase()),
        );
        return spec.kind === 'enumArray'
          ? fc.array(one, { minLength: 1, maxLength: 30 }).map((vs) => vs.join(','))
          : one;
      }
      case 'boolean':
        return fc.constantFrom('true', 'false', 'TRUE', '1', '0', 'yes', '');
      case 'integer':
      case 'number':
        return numberish;
      case 'date':
        return dateish;
      default:
        return anyText;
    }
  })();
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: anyText });
}

const encode = (text: string): string => {
  try {
    return encodeURIComponent(text);
  } catch {
    // An unpaired surrogate: sent as the raw escape of its UTF-16 unit (not valid UTF-8).
    return [...text]
      .map((c) =>
        c.length === 1 && c >= '\ud800' && c <= '\udfff'
          ? `%${(c.charCodeAt(0) & 0xff).toString(16).padStart(2, '0')}`
          : encodeURIComponent(c),
      )
      .join('');
  }
};

/** One `name=value` pair: a known parameter with a shaped value, or noise. */
const pair: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom(...PARAM_NAMES)
      .chain((name) => valueFor(SPECS[name]).map((value) => `${name}=${encode(value)}`)),
  },
  { weight: 1, arbitrary: fc.tuple(anyText, anyText).map(([name, value]) => `${encode(name)}=${encode(value)}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '=',
      '&',
      'page',
      'limit=',
      '=1',
      'a=1=2',
      '%=%',
      'page=1&page=2',
      'search=%E9t%E9',
      'search=%C3%A9',
      'search=%FF%FE',
    ),
  },
);

const queryString = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 8 }).map((pairs) => `?${pairs.join('&')}`) },
  { weight: 1, arbitrary: fc.array(pair, { minLength: 40, maxLength: 70 }).map((pairs) => `?${pairs.join('&')}`) },
);

/**
 * One character of a key as a client may spell it: itself, its case swapped, percent-encoded (either hex case), or
 * encoded twice.
 */
const spelledChar = (c: string): fc.Arbitrary<string> => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return fc.constantFrom(
    c,
    c,
    c,
    c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase(),
    `%${hex.toUpperCase()}`,
    `%${hex}`,
    `%25${hex.toUpperCase()}`,
  );
};

/**
 * The valid key, spelled in a path segment: whole, upper case, or character by character in any encoding (the log must
 * never hold it).
 */
export const spelledKey = (key: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(key, key.toUpperCase()),
    fc.tuple(...[...key].map(spelledChar)).map((chars) => chars.join('')),
  );

/** A path parameter: a real id now and then (so grants are found), the valid key spelled some way, else anything. */
const segmentValue = (ids: readonly string[], keys: FuzzKeys): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    { weight: 3, arbitrary: anyText.map(encode) },
    { weight: 1, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2F', 'a%2Fb', '%00', 'filters', '') },
    { weight: 1, arbitrary: spelledKey(keys.valid) },
  );

/** A path of the route table with its parameters filled, or a path beside it. */
function pathOf(ids: readonly string[], keys: FuzzKeys): fc.Arbitrary<string> {
  const fromTable = fc.constantFrom(...ROUTES.map((route) => route.template)).chain((template) => {
    const parts = template.split('/').slice(1);
    return fc
      .tuple(...parts.map((part) => (part.startsWith(':') ? segmentValue(ids, keys) : fc.constant(part))))
      .map((filled) => `${API_PREFIX}/${filled.join('/')}`);
  });
  const beside = fc.oneof(
    fc.constantFrom(
      API_PREFIX,
      `${API_PREFIX}/`,
      `${API_PREFIX}/grants/`,
      `${API_PREFIX}/GRANTS`,
      `${API_PREFIX}//grants`,
      `${API_PREFIX}/grants/a/b`,
      `${API_PREFIX}/openapi.json`,
      '/external/v2/grants',
      '/',
      '/healthz',
      '/readyz',
      '/docs',
      '/metrics',
      '/favicon.ico',
    ),
    fc.array(anyText.map(encode), { minLength: 1, maxLength: 4 }).map((parts) => `${API_PREFIX}/${parts.join('/')}`),
    spelledKey(keys.valid).map((key) => `/${key}`),
  );
  return fc.oneof({ weight: 8, arbitrary: fromTable }, { weight: 2, arbitrary: beside });
}

/** Header values a client can send (visible ASCII and spaces; Node refuses the rest on the client side). */
const headerText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.nat({ max: 6000 }).map((n) => 'a'.repeat(n)),
);

function headersOf(keys: FuzzKeys): fc.Arbitrary<Record<string, string>> {
  const authorization = fc.oneof(
    { weight: 10, arbitrary: fc.constant(`Bearer ${keys.valid}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Bearer',
        'Bearer ',
        `bearer ${keys.valid}`,
        `Bearer  ${keys.valid}`,
        'Basic dXNlcjpwYXNz',
        `Bearer ${keys.valid}x`,
        `Bearer ${'A'.repeat(40)}`,
      ),
    },
    { weight: 1, arbitrary: headerText.map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const optional = (arb: fc.Arbitrary<string>) => fc.option(arb, { nil: undefined, freq: 2 });
  return fc
    .record({
      authorization,
      'if-none-match': optional(
        fc.oneof(fc.constantFrom('*', 'W/"x"', '"x"', 'W/', '', ',', 'W/"a", "b"'), headerText),
      ),
      'accept-encoding': optional(
        fc.oneof(
          fc.constantFrom(
            'gzip',
            'br',
            'gzip, br',
            'br;q=0, gzip',
            'identity',
            '*',
            'deflate',
            'zstd',
            'gzip;q=abc',
            '*;q=0',
          ),
          headerText,
        ),
      ),
      accept: optional(fc.constantFrom('application/json', 'text/csv', 'application/x-ndjson', '*/*', 'text/html')),
      'x-request-id': optional(headerText),
      origin: optional(fc.constantFrom('https://evil.example', 'null', 'http://localhost:3000')),
      'access-control-request-method': optional(fc.constantFrom('GET', 'DELETE')),
      'content-type': optional(fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x')),
      'x-forwarded-for': optional(fc.constantFrom('1.2.3.4', 'unknown', '::1, 10.0.0.1')),
      range: optional(fc.constantFrom('bytes=0-10', 'bytes=-5', 'items=0-1')),
      cookie: optional(headerText),
    })
    .map((record) =>
      Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    );
}

const METHODS = fc.oneof(
  { weight: 12, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  { weight: 1, arbitrary: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND') },
);

/** Arrays or objects nested `n` levels deep, up to 20,000. */
const nested = fc
  .tuple(
    fc.constantFrom(['[', ']'], ['{"a":', '}']),
    fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 20_000 })),
  )
  .map(([[open, close], n]) => open.repeat(n) + (open === '[' ? '' : '1') + close.repeat(n));

/**
 * Tool arguments a hostile client sends: nested deep (as a whole, in a known argument, in an unknown one), no object,
 * any JSON.
 */
const hostileArguments = fc.oneof(
  nested,
  nested.map((deep) => `{"search":${deep}}`),
  nested.map((deep) => `{"zz":${deep}}`),
  fc.constantFrom('[]', '[1]', '"text"', '5', 'true', 'null', '{}', '{"limit":-1}', '{"__proto__":{"x":1}}'),
  fc.json({ maxDepth: 6 }),
);

/** A tools/call of any tool (or none of them) with hostile arguments, now and then with bytes that are not UTF-8. */
const mcpCall: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.constantFrom(...MCP_TOOL_NAMES, 'no_such_tool'),
    hostileArguments,
    fc.option(fc.constantFrom([0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80]), { nil: undefined, freq: 4 }),
  )
  .map(([name, args, badBytes]) => {
    const message = Buffer.from(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`,
    );
    if (badBytes === undefined) return message;
    // Inside the tool's name, a JSON string: valid JSON but for the bytes.
    const at = message.indexOf(name) + 1;
    return Buffer.concat([message.subarray(0, at), Buffer.from(badBytes), message.subarray(at)]);
  });

function mcpRequest(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  return mcpCall.map((body) => ({
    method: 'POST',
    target: `${API_PREFIX}/mcp`,
    headers: {
      authorization: `Bearer ${keys.valid}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body,
  }));
}

/** A whole request. `ids` are grant ids of the served catalog. */
export function requestArbitrary(keys: FuzzKeys, ids: readonly string[]): fc.Arbitrary<FuzzRequest> {
  const any = fc
    .record({ method: METHODS, path: pathOf(ids, keys), query: queryString, headers: headersOf(keys) })
    .map(({ method, path, query, headers }) => ({
      method,
      target: path + query,
      headers,
    }));
  return fc.oneof({ weight: 15, arbitrary: any }, { weight: 1, arbitrary: mcpRequest(keys) });
}
