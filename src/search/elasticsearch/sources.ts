// The grants of an Elasticsearch response as served JSON text, cut out of the response's text
// instead of parsed and written again. Pure: no I/O, unit- and property-tested on its output.
//
// The API serves each grant as JSON.stringify(its _source). Parsing a page of hits (about 21 KB
// for 20 grants) and writing each grant again cost the API a quarter of its CPU per search. A
// _source as Elasticsearch writes it is already that text, except where its JSON writer and
// JSON.stringify differ: Elasticsearch escapes control characters as \u00XX (upper-case hex) and
// writes doubles as Java does (1.23456785E7, 1.0E-4). So each _source is scanned once: when it
// holds nothing JSON.stringify would write otherwise (an escape other than \" \\ \b \f \n \r \t,
// a number whose text is not String(Number(text)), a key starting with a digit, which
// JSON.parse would move first, whitespace), its text is served as it is; otherwise it is parsed
// and written again, as before. The rest of the response (totals, sort values, aggregations) is
// parsed with each _source replaced by its index.

const SOURCE_KEY = '"_source":';

/** A response whose `_source` values are numbers: indexes into `sources`, each the served JSON text. */
export interface SourcedResponse<T> {
  body: T;
  sources: string[];
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const MINUS = 45;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

/** The escapes JSON.stringify writes (after the backslash): " \ b f n r t. */
const isStringifyEscape = (code: number): boolean =>
  code === QUOTE || code === BACKSLASH || code === 98 || code === 102 || code === 110 || code === 114 || code === 116;
const isNumberPart = (code: number): boolean =>
  (code >= DIGIT_0 && code <= DIGIT_9) || code === 46 || code === 101 || code === 69 || code === 43 || code === MINUS;

/**
 * The end (exclusive) of the JSON value starting at `start`, and whether its text is exactly
 * JSON.stringify(JSON.parse(text)). Assumes valid JSON (Elasticsearch's own output).
 */
export function scanValue(text: string, start: number): { end: number; canonical: boolean } {
  let canonical = true;
  let depth = 0;
  let i = start;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const opened = i;
      for (i += 1; ; i += 1) {
        if (i >= n) throw new SyntaxError('unterminated string in a _source');
        const d = text.charCodeAt(i);
        if (d === QUOTE) break;
        if (d === BACKSLASH) {
          if (!isStringifyEscape(text.charCodeAt(i + 1))) canonical = false;
          i += 1;
        } else if (d < 0x20) {
          canonical = false;
        }
      }
      i += 1;
      // A key: JSON.parse puts integer-like keys first, so one starting with a digit may move.
      if (
        text.charCodeAt(i) === COLON &&
        text.charCodeAt(opened + 1) >= DIGIT_0 &&
        text.charCodeAt(opened + 1) <= DIGIT_9
      )
        canonical = false;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      i += 1;
      continue;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth -= 1;
      i += 1;
    } else if (c === COMMA || c === COLON) {
      i += 1;
      continue;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      let j = i + 1;
      while (j < n && isNumberPart(text.charCodeAt(j))) j += 1;
      const token = text.slice(i, j);
      if (String(Number(token)) !== token) canonical = false;
      i = j;
    } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
      i += 4;
    } else if (text.startsWith('false', i)) {
      i += 5;
    } else {
      // Whitespace (JSON.stringify writes none), or anything else.
      canonical = false;
      i += 1;
      continue;
    }
    if (depth <= 0) return { end: i, canonical };
  }
  throw new SyntaxError('unterminated _source');
}

/**
 * Parses a response of _search or _mget, each `_source` cut out as served text. A `"_source":`
 * in the text is always a key (a quote inside a string is escaped), and grants have no field of
 * that name, so every one found is a hit's or a document's.
 */
export function readSources<T>(text: string): SourcedResponse<T> {
  const sources: string[] = [];
  let skeleton = '';
  let copied = 0;
  for (let at = text.indexOf(SOURCE_KEY); at !== -1; at = text.indexOf(SOURCE_KEY, copied)) {
    const start = at + SOURCE_KEY.length;
    const { end, canonical } = scanValue(text, start);
    const raw = text.slice(start, end);
    skeleton += `${text.slice(copied, start)}${sources.length}`;
    sources.push(canonical ? raw : JSON.stringify(JSON.parse(raw)));
    copied = end;
  }
  return { body: JSON.parse(copied === 0 ? text : skeleton + text.slice(copied)) as T, sources };
}
