// The XML inside a zip archive (a Grants.gov GrantsDBExtract…zip), read entry by entry as streams
// (yauzl), with a zip bomb refused before it is inflated: an entry larger than MAX_ENTRY_BYTES or
// inflating more than MAX_RATIO times its compressed size. yauzl checks that each entry inflates
// to exactly the size it declares.
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { SourceUnreadable } from './bytes.js';

/** The largest entry read (the real extract's XML is a few hundred megabytes). */
const MAX_ENTRY_BYTES = 4 * 1024 ** 3;
/** The largest inflation ratio accepted (XML compresses about 10 to 20 times). */
export const MAX_RATIO = 200;

const openZip = (file: string): Promise<yauzl.ZipFile> =>
  new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, validateEntrySizes: true, autoClose: false }, (error, zip) =>
      error ? reject(error) : resolve(zip),
    ),
  );

const megabytes = (bytes: number): string =>
  bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

/** Checks an entry's declared sizes against the caps: the reason it is refused, or null. */
export function bombReason(entry: {
  fileName: string;
  compressedSize: number;
  uncompressedSize: number;
}): string | null {
  if (entry.uncompressedSize > MAX_ENTRY_BYTES) {
    return (
      `its entry ${entry.fileName} would inflate to ${megabytes(entry.uncompressedSize)}, more than the ` +
      `${megabytes(MAX_ENTRY_BYTES)} allowed`
    );
  }
  const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
  if (ratio > MAX_RATIO) {
    return (
      `its entry ${entry.fileName} would inflate ${Math.round(ratio)} times ` +
      `(${megabytes(entry.compressedSize)} to ${megabytes(entry.uncompressedSize)}), more than the ` +
      `${MAX_RATIO} times allowed (a zip bomb)`
    );
  }
  return null;
}

/** Yields a stream for each .xml entry of the archive, one at a time, in the archive's order. */
export async function* xmlEntries(file: string): AsyncGenerator<{ name: string; bytes: AsyncIterable<Buffer> }> {
  const damaged = (error: unknown) =>
    new SourceUnreadable(
      `${file} is not a complete zip archive (${(error as Error).message}): it is damaged or was cut short`,
    );
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (error) {
    throw damaged(error);
  }
  let found = 0;
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const cleanup = () => {
          zip.off('entry', onEntry);
          zip.off('end', onEnd);
          zip.off('error', onError);
        };
        const onEntry = (e: yauzl.Entry) => (cleanup(), resolve(e));
        const onEnd = () => (cleanup(), resolve(null));
        const onError = (error: Error) => (cleanup(), reject(damaged(error)));
        zip.on('entry', onEntry);
        zip.on('end', onEnd);
        zip.on('error', onError);
        zip.readEntry();
      });
      if (entry === null) break;
      if (entry.fileName.endsWith('/') || !/\.xml$/i.test(entry.fileName)) continue;
      const refused = bombReason(entry);
      if (refused !== null) throw new SourceUnreadable(`${file} is refused: ${refused}`);
      found += 1;
      const stream = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (error, s) => (error ? reject(damaged(error)) : resolve(s))),
      );
      yield { name: `${file}:${entry.fileName}`, bytes: inflated(stream, damaged) };
    }
  } finally {
    zip.close();
  }
  if (found === 0)
    throw new SourceUnreadable(`${file} holds no .xml file: a Grants.gov extract zip holds the extract's XML`);
}

/**
 * The entry's bytes, its read errors (a size other than the declared one, a damaged deflate stream) as
 * SourceUnreadable.
 */
async function* inflated(stream: Readable, damaged: (error: unknown) => Error): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    throw damaged(error);
  }
}
