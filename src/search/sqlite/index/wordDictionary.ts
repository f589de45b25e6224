// The catalog's words as written (folded, lower case, not stemmed) with how many grants hold each:
// the dictionary typo tolerance and search as you type read (grants/typos.ts, grants/suggest.ts).
// Read once per catalog build from the grants_words FTS5 table's vocabulary; the sorted words and
// their walks are search/wordDictionary.ts's; the neighbours each word was asked for are kept with
// the build's dictionary, so a new build starts afresh.
import { LRUCache } from 'lru-cache';
import { SortedWords } from '../../wordDictionary.js';
import type { Db } from '../storage/catalogFile.js';
import { tableExists } from '../storage/catalogFile.js';

/** The vocabulary table over grants_words, on the reading connection's temp schema. */
const WORDS_VOCABULARY_DDL =
  "CREATE VIRTUAL TABLE IF NOT EXISTS temp.grants_words_row USING fts5vocab(main, 'grants_words', 'row')";

/** Words whose neighbours are remembered per build; past this the least recently used is forgotten. */
const NEIGHBOURS_REMEMBERED = 4096;

export class WordDictionary extends SortedWords {
  /** Each walk's answer, by bound and word: a search's words are looked up again by the next search of them. */
  private readonly walked = new LRUCache<string, ReturnType<SortedWords['neighbours']>>({ max: NEIGHBOURS_REMEMBERED });

  static override of(entries: readonly [string, number][]): WordDictionary {
    const { words, docs } = SortedWords.sorted(entries);
    return new WordDictionary(words, docs);
  }

  /** SortedWords.neighbours, remembered for this build (the answer is shared: frozen). */
  override neighbours(word: string, max: number): ReturnType<SortedWords['neighbours']> {
    const key = `${max}:${word}`;
    let found = this.walked.get(key);
    if (found === undefined) {
      found = Object.freeze(super.neighbours(word, max)) as ReturnType<SortedWords['neighbours']>;
      this.walked.set(key, found);
    }
    return found;
  }

  /** The dictionary of the connection's current snapshot (empty for a catalog without grants_words). */
  static load(db: Db): WordDictionary {
    if (!tableExists(db, 'grants_words')) return WordDictionary.of([]);
    db.exec(WORDS_VOCABULARY_DDL);
    return WordDictionary.of(
      db.prepare('SELECT term, doc FROM temp.grants_words_row').raw().all() as [string, number][],
    );
  }
}
