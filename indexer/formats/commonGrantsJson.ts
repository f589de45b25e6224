// CommonGrants opportunities as a stream of JSON values (@streamparser/json): a list response
// (`{ "items": [...], "paginationInfo": … }`, one page or several one after the other), a JSON
// array of opportunities, or opportunities one after the other (NDJSON). The first value decides
// which. Malformed or cut-short JSON is unreadable; memory stays bounded by one opportunity.
import { JSONParser, Tokenizer, TokenType } from '@streamparser/json';
import { MAX_RECORD_CHARS } from '../source.js';
import { SourceUnreadable } from './bytes.js';

/** How the opportunities are laid out in the source. */
type Layout = 'pages' | 'array' | 'opportunities';

/** What `JSONParser` emits for each layout: the items of each page, the elements of the array, each top-level value. */
const PATHS: Record<Layout, string[]> = { pages: ['$.items.*'], array: ['$.*'], opportunities: ['$'] };

/** A decision reached: thrown out of the tokenizer to stop it. */
class Decided {
  constructor(readonly layout: Layout) {}
}

/**
 * The layout of a source from its first characters: `[` an array; `{` whose first value holds an
 * `items` key a list response; any other first value an opportunity. Null until the text says.
 */
export function layoutOf(text: string): Layout | null {
  const tokenizer = new Tokenizer({ separator: '' });
  let depth = 0;
  let expectKey = false;
  let key: string | null = null;
  tokenizer.onToken = ({ token, value }) => {
    if (depth === 0 && token === TokenType.LEFT_BRACKET) throw new Decided('array');
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      depth += 1;
      expectKey = token === TokenType.LEFT_BRACE && depth === 1;
      return;
    }
    if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      depth -= 1;
      if (depth === 0) throw new Decided('opportunities');
      return;
    }
    if (depth === 0) throw new Decided('opportunities'); // a scalar: not an opportunity, reported as such
    if (depth !== 1) return;
    if (expectKey && token === TokenType.STRING) key = value as string;
    else if (token === TokenType.COLON && key === 'items') throw new Decided('pages');
    expectKey = token === TokenType.COMMA;
  };
  try {
    tokenizer.write(text);
  } catch (error) {
    if (error instanceof Decided) return error.layout;
    throw error;
  }
  return null;
}

interface OpportunityValue {
  /** 1-based position among the opportunities of the source. */
  number: number;
  value: unknown;
}

const unreadable = (name: string, error: unknown) =>
  new SourceUnreadable(`${name} is not valid JSON: ${(error as Error).message.replace(/^Unexpected /, 'unexpected ')}`);

/** Yields the source's opportunities one at a time. */
export async function* readOpportunities(text: AsyncIterable<string>, name: string): AsyncGenerator<OpportunityValue> {
  let head = '';
  let layout: Layout | null = null;
  let parser: JSONParser | null = null;
  let number = 0;
  let sinceLast = 0;
  const found: OpportunityValue[] = [];

  const start = (chosen: Layout) => {
    layout = chosen;
    parser = new JSONParser({ paths: PATHS[chosen], keepStack: false, ...(chosen !== 'array' && { separator: '' }) });
    parser.onValue = ({ value }) => {
      number += 1;
      sinceLast = 0;
      found.push({ number, value });
    };
  };
  const feed = (chunk: string) => {
    sinceLast += chunk.length;
    try {
      parser!.write(chunk);
    } catch (error) {
      throw unreadable(name, error);
    }
    if (sinceLast > MAX_RECORD_CHARS)
      throw new SourceUnreadable(
        `${name} holds an opportunity longer than ${MAX_RECORD_CHARS.toLocaleString('en-US')} characters ` +
          `(opportunity ${number + 1})`,
      );
  };

  for await (const chunk of text) {
    if (layout === null) {
      head += chunk;
      let decided: Layout | null;
      try {
        decided = layoutOf(head);
      } catch (error) {
        throw unreadable(name, error);
      }
      if (decided === null) {
        if (head.length > MAX_RECORD_CHARS)
          throw new SourceUnreadable(
            `${name} holds an opportunity longer than ${MAX_RECORD_CHARS.toLocaleString('en-US')} ` +
              `characters (opportunity 1)`,
          );
        continue;
      }
      start(decided);
      const buffered = head;
      head = '';
      feed(buffered);
    } else {
      feed(chunk);
    }
    yield* found.splice(0);
  }
  if (layout === null) {
    if (head.trim() === '') return;
    try {
      layoutOf(head);
    } catch (error) {
      throw unreadable(name, error);
    }
    throw new SourceUnreadable(`${name} ends in the middle of a JSON value: it was cut short`);
  }
  const open = parser! as JSONParser;
  try {
    if (!open.isEnded) open.end();
  } catch {
    throw new SourceUnreadable(`${name} ends in the middle of a JSON value: it was cut short`);
  }
  yield* found.splice(0);
}
