// The terms FTS5 makes of a search word: the catalog's own tokenizer (TEXT_TOKENIZER: porter
// stemming over unicode61) run on the word in a private in-memory FTS5 table, so the in-memory
// postings are looked up under exactly the terms FTS5 would look up. Tokenizing depends on the
// word only, never on a catalog, so words seen recently are remembered.
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { TEXT_TOKENIZER } from '../storage/catalogFile.js';

/** Words remembered; past this the least recently used is forgotten. */
const REMEMBERED = 10_000;

export class QueryTerms {
  private readonly db = new Database(':memory:');
  private readonly insert: Database.Statement;
  private readonly terms: Database.Statement;
  private readonly clear: Database.Statement;
  private readonly seen = new LRUCache<string, readonly string[]>({ max: REMEMBERED });

  constructor() {
    this.db.exec(`CREATE VIRTUAL TABLE words USING fts5(word, tokenize = '${TEXT_TOKENIZER.replace(/'/g, "''")}');
      CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, instance);`);
    this.insert = this.db.prepare('INSERT INTO words (rowid, word) VALUES (1, ?)');
    this.terms = this.db.prepare('SELECT term FROM word_terms ORDER BY "offset"').pluck();
    this.clear = this.db.prepare('DELETE FROM words');
  }

  /** The terms of one word, in order (one for most words; none or several when the tokenizer splits it). */
  of(word: string): readonly string[] {
    const known = this.seen.get(word);
    if (known !== undefined) return known;
    this.insert.run(word);
    const terms = this.terms.all() as string[];
    this.clear.run();
    this.seen.set(word, terms);
    return terms;
  }

  close(): void {
    this.db.close();
  }
}
