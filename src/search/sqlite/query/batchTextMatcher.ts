// Which of a few grants the search words of many queries match, decided as the embedded engine
// decides it: the grants' text in a private in-memory FTS5 table with the catalog's own columns
// and tokenizer, each query's search as the engine's own match expression. The alert matcher asks it
// once per batch of changes.
import Database from 'better-sqlite3';
import type { Grant } from '../../../grants/schema.js';
import type { ParsedSearch } from '../../../grants/searchSyntax.js';
import { TEXT_TOKENIZER } from '../storage/catalogFile.js';
import { insertTextSql, TEXT_COLUMNS, textColumnsOf } from '../storage/textColumns.js';
import { ftsMatchExpression } from './fts5Expression.js';

interface TextBatch {
  /**
   * The ids of the batch's grants the search matches, as GET /grants matches it (the same FTS5
   * expression): all of them without a search (null), none for a search with nothing to find.
   */
  matching(search: ParsedSearch | null): ReadonlySet<string>;
  close(): void;
}

const NONE: ReadonlySet<string> = new Set();

export class BatchTextMatcher {
  private readonly db = new Database(':memory:');

  constructor() {
    this.db.exec(
      `CREATE VIRTUAL TABLE batch_text USING fts5(${TEXT_COLUMNS.join(', ')}, tokenize = ` +
        `'${TEXT_TOKENIZER.replace(/'/g, "''")}')`,
    );
  }

  /** Indexes the grants' text for the questions that follow, until the batch is closed. */
  batch(grants: readonly Grant[]): TextBatch {
    const db = this.db;
    db.exec('DELETE FROM batch_text');
    const insert = db.prepare(insertTextSql('batch_text'));
    db.transaction(() => grants.forEach((g, i) => insert.run(i + 1, ...textColumnsOf(g))))();
    const find = db.prepare('SELECT rowid FROM batch_text WHERE batch_text MATCH ?').pluck();
    const all = new Set(grants.map((g) => g.id));
    const answers = new Map<string, ReadonlySet<string>>();
    // The same search object is asked about once per candidate grant: its answer is kept by identity too.
    const bySearch = new WeakMap<ParsedSearch, ReadonlySet<string>>();
    return {
      matching(search) {
        if (search === null) return all;
        const known = bySearch.get(search);
        if (known !== undefined) return known;
        const expression = ftsMatchExpression(search);
        let found = expression === null ? NONE : answers.get(expression);
        if (found === undefined) {
          found = new Set((find.all(expression) as number[]).map((rowid) => grants[rowid - 1].id));
          answers.set(expression!, found);
        }
        bySearch.set(search, found);
        return found;
      },
      close() {
        db.exec('DELETE FROM batch_text');
      },
    };
  }

  close(): void {
    this.db.close();
  }
}
