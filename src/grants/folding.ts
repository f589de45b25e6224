// Folds text to the letters FTS5 compares, as Elasticsearch's asciifolding does: decomposed
// accents dropped (é → e) and the letters no decomposition reaches spelled out (œ → oe, ß → ss).
const SPELLED: Record<string, string> = {
  œ: 'oe',
  Œ: 'OE',
  æ: 'ae',
  Æ: 'AE',
  ß: 'ss',
  ẞ: 'SS',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
  ĸ: 'k',
  ŋ: 'n',
  Ŋ: 'N',
};
const UNDECOMPOSABLE = new RegExp(`[${Object.keys(SPELLED).join('')}]`, 'g');

export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(UNDECOMPOSABLE, (c) => SPELLED[c]);
}

/**
 * The key `sort=title` orders by: the title folded as the search folds it (accents dropped,
 * ligatures spelled out, lower case). Compared by Unicode code point.
 */
export function titleSortKey(title: string): string {
  return foldText(title).toLowerCase();
}
