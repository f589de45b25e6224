-- The embedded catalog. "__T__" is the table-name suffix: "" for the live catalog, "_building"
-- while a reindex fills a new one; "__G__" makes index names unique to one build.
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
-- Both indexes hold every filter column, so filters are checked in the index and only the
-- page's rows are read from the table (whose rows carry the whole document):
-- the order index serves filter-only pages by walking in deadline order (dense matches);
CREATE INDEX grants_order__G__ ON grants__T__ (deadline IS NULL, deadline, id, funder_type, funding_type, provinces, amount_min, amount_max);
-- the filter index serves the counts and the pages of sparse matches (then sorted).
CREATE INDEX grants_filter__G__ ON grants__T__ (funder_type, funding_type, provinces, amount_min, amount_max, deadline, id);
CREATE VIRTUAL TABLE grants_text__T__ USING fts5(
  title, funder, description,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
