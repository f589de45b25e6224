// Which importer reads a source: given by --format, or guessed from the file's name and first bytes.
// Pure: a name and the first bytes in, a format and the reason out.

export const FORMATS = ['ndjson', 'json', 'csv', 'grants-gov', 'commongrants'] as const;
export type Format = (typeof FORMATS)[number];

/** How the bytes are packed around the format. */
export type Packing = 'plain' | 'gzip' | 'zip';

interface Guess {
  format: Format;
  packing: Packing;
  /** Why, in words, for the output ("the extension .csv"). */
  reason: string;
}

const EXTENSIONS: Record<string, Format> = {
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
  '.csv': 'csv',
  '.xml': 'grants-gov',
  '.zip': 'grants-gov',
};

const isZip = (head: Uint8Array): boolean =>
  head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
const isGzip = (head: Uint8Array): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

/** The format of plain text from its first characters, or null when they say nothing. */
function formatOfText(head: string): Format | null {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text === '') return null;
  if (text.startsWith('<')) return 'grants-gov';
  if (text.startsWith('[')) return 'json';
  if (text.startsWith('{')) return 'ndjson';
  return 'csv';
}

/**
 * A key that only a CommonGrants opportunity or list response has (ours have `updatedAt`, a
 * string `status`, no `items`), outside a string (not after a backslash).
 */
const COMMON_GRANTS_KEY =
  /(?<!\\)"(?:items|paginationInfo|lastModifiedAt|customFields|keyDates|acceptedApplicantTypes)"\s*:|(?<!\\)"status"\s*:\s*\{/;

/** Whether JSON text (an object or an array first) holds CommonGrants opportunities. */
function isCommonGrants(head: string): boolean {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  return (text.startsWith('{') || text.startsWith('[')) && COMMON_GRANTS_KEY.test(text);
}

/** The extension that names a format ("programs.ndjson.gz" → ".ndjson"), or null. */
function extensionFormat(name: string): { extension: string; format: Format } | null {
  const lower = name.toLowerCase().replace(/\.gz$/, '');
  const ending = /\.[a-z]+$/.exec(lower);
  if (ending === null) return null;
  const format = EXTENSIONS[ending[0]];
  return format === undefined ? null : { extension: ending[0], format };
}

/**
 * Guesses a source's format: a zip archive is a Grants.gov extract; JSON whose first characters
 * hold a key only CommonGrants has (`items`, `paginationInfo`, `lastModifiedAt`, `customFields`,
 * `keyDates`, `acceptedApplicantTypes`, an object `status`) is CommonGrants, whatever its
 * extension; otherwise a known extension decides (".ndjson", ".jsonl", ".json", ".csv", ".xml",
 * each optionally ".gz"), else the first characters ("<" XML, "[" a JSON array, "{" NDJSON,
 * anything else CSV). `head` is the first bytes as stored; `text` the first characters once ungzipped.
 */
export function guessFormat(name: string | null, head: Uint8Array, text: string): Guess {
  if (isZip(head)) return { format: 'grants-gov', packing: 'zip', reason: 'its first bytes (a zip archive)' };
  const packing: Packing = isGzip(head) ? 'gzip' : 'plain';
  const gz = packing === 'gzip' ? ', gzip-compressed' : '';
  const byName = name === null ? null : extensionFormat(name);
  const jsonName = byName === null || byName.format === 'ndjson' || byName.format === 'json';
  if (jsonName && isCommonGrants(text))
    return { format: 'commongrants', packing, reason: `its first characters (CommonGrants opportunities)${gz}` };
  if (byName !== null) return { format: byName.format, packing, reason: `the extension ${byName.extension}${gz}` };
  const byText = formatOfText(text);
  if (byText !== null) return { format: byText, packing, reason: `the first characters${gz}` };
  return { format: 'ndjson', packing, reason: `an empty source${gz}` };
}

/** The packing of a source whose format was given (--format): zip and gzip are still recognised. */
export function packingOf(head: Uint8Array): Packing {
  return isZip(head) ? 'zip' : isGzip(head) ? 'gzip' : 'plain';
}
