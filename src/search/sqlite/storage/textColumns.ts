// The columns of the catalog's FTS5 table (mappings/sqlite-catalog.sql) and what a grant puts in
// them. Every text field is there twice: as written (FTS5's tokenizer applies the English
// analysis: folding, then Porter stemming) and as grants/french.ts analyses it in French (elided
// articles dropped, folded, light-stemmed), each French term marked with FRENCH_MARK. The table has
// one tokenizer, and Porter stems only words that end in letters: the mark keeps the French terms
// as the French analysis made them. Pure.
import { foldText } from '../../../grants/folding.js';
import { frenchTermOf, frenchTerms } from '../../../grants/french.js';
import { LABELS_WEIGHT, labelText } from '../../../grants/labels.js';
import type { Grant } from '../../../grants/schema.js';

/** What ends every French term in the catalog (and every French term searched for). */
const FRENCH_MARK = '0';

/** The text fields, each with its relevance weight: title above funder above description, the labels lowest. */
const FIELDS = [
  { column: 'title', weight: 3, text: (g: Grant) => g.title },
  { column: 'funder', weight: 2, text: (g: Grant) => g.funder },
  { column: 'description', weight: 1, text: (g: Grant) => g.description ?? '' },
  { column: 'title_fr', weight: 3, text: (g: Grant) => g.titleFr ?? '' },
  { column: 'description_fr', weight: 1, text: (g: Grant) => g.descriptionFr ?? '' },
  { column: 'labels', weight: LABELS_WEIGHT, text: labelText },
] as const;

/** The columns holding the English analysis (the text as written, folded). */
export const ENGLISH_COLUMNS: readonly string[] = FIELDS.map((f) => f.column);

/** The columns holding the French analysis, in the same field order. */
export const FRENCH_COLUMNS: readonly string[] = FIELDS.map((f) => `${f.column}_french`);

/** Every column of the FTS5 table, in its order: the English ones, then the French ones. */
export const TEXT_COLUMNS: readonly string[] = [...ENGLISH_COLUMNS, ...FRENCH_COLUMNS];

/** Each column's relevance weight (bm25's weights), in TEXT_COLUMNS order. */
export const COLUMN_WEIGHTS: readonly number[] = [...FIELDS.map((f) => f.weight), ...FIELDS.map((f) => f.weight)];

/**
 * What a catalog whose text table lacks these columns (built by an earlier release) is told: the
 * engine answers 503 with it, the writer refuses to sync into it.
 */
export const EARLIER_CATALOG =
  'the catalog was built by an earlier release (its text index lacks the French and label columns); run ' +
  'grants-indexer reindex';

/** A French term as the catalog holds it. */
const markedFrenchTerm = (term: string): string => `${term}${FRENCH_MARK}`;

/** The French term of a search word as the catalog holds it. */
export const frenchSearchTerm = (word: string): string => markedFrenchTerm(frenchTermOf(word));

/**
 * The columns of the word dictionary (grants_words: the catalog's words as written, folded, for
 * typo tolerance and suggestions): every text field but the labels, whose words are the API's own
 * fixed vocabulary rather than the grants' (docs/architecture.md states the rule).
 */
export const WORD_COLUMNS: readonly string[] = ENGLISH_COLUMNS.filter((column) => column !== 'labels');

/** A grant's values of WORD_COLUMNS, in order: the text as written, folded (as the English columns hold it). */
export function wordColumnsOf(grant: Grant): string[] {
  return FIELDS.filter((f) => WORD_COLUMNS.includes(f.column)).map((f) => foldText(f.text(grant)));
}

/** The INSERT of a grant's words into a table of WORD_COLUMNS (parameters: rowid, then the values of wordColumnsOf). */
export const insertWordsSql = (table: string): string =>
  `INSERT INTO ${table} (rowid, ${WORD_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(WORD_COLUMNS.length)})`;

/** A grant's values of TEXT_COLUMNS, in order. */
export function textColumnsOf(grant: Grant): string[] {
  const texts = FIELDS.map((f) => f.text(grant));
  return [...texts.map(foldText), ...texts.map((text) => frenchTerms(text).map(markedFrenchTerm).join(' '))];
}

/**
 * The INSERT of a grant's text row into a table of these columns (parameters: rowid, then the values of textColumnsOf).
 */
export const insertTextSql = (table: string): string =>
  `INSERT INTO ${table} (rowid, ${TEXT_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(TEXT_COLUMNS.length)})`;
