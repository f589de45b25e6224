-- The embedded catalog. "__T__" is the table-name suffix: "" for the live catalog, "_building"
-- while a reindex fills a new one ("__G__", a build id, is free for names unique to one build).
CREATE TABLE grants__T__ (
  rowid         INTEGER PRIMARY KEY,
  id            TEXT    NOT NULL UNIQUE,
  funder_type   TEXT    NOT NULL,
  funding_type  TEXT    NOT NULL,
  currency      TEXT    NOT NULL,
  provinces     INTEGER NOT NULL,  -- bit set over PROVINCES (schema order)
  beneficiaries INTEGER NOT NULL,  -- bit set over BENEFICIARIES (schema order)
  amount_min    REAL,
  amount_max    REAL,
  deadline      TEXT,              -- ISO 8601 UTC with milliseconds: sorts as text
  updated_at    TEXT    NOT NULL,
  doc           TEXT    NOT NULL   -- the grant as served, JSON in wire order
);
-- No index beyond id: the search engine filters, counts, facets and sorts from columns it holds in
-- memory (src/search/sqlite/index/columns.ts), loaded from this table once per catalog build.
-- The text, twice (src/search/sqlite/storage/textColumns.ts): each field as written, which the
-- tokenizer analyses in English, then each field's French analysis, made before it is written.
CREATE VIRTUAL TABLE grants_text__T__ USING fts5(
  title, funder, description, title_fr, description_fr, labels,
  title_french, funder_french, description_french, title_fr_french, description_fr_french, labels_french,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
-- The catalog's words as written (folded, not stemmed), for typo tolerance and suggestions: the
-- text fields but the labels (src/search/sqlite/storage/textColumns.ts WORD_COLUMNS), and only
-- which grants hold each word (src/search/sqlite/index/wordDictionary.ts reads it as a sorted dictionary).
CREATE VIRTUAL TABLE grants_words__T__ USING fts5(
  title, funder, description, title_fr, description_fr,
  tokenize = 'unicode61 remove_diacritics 2',
  content = '', contentless_delete = 1, detail = none
);
