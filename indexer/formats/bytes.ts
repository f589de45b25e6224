// The bytes of a source before any format reads them: a peek at the first bytes (to guess the
// format, from a file or stdin alike), gzip, and UTF-8 decoding that names the line of a bad byte.
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** A source that cannot be read to the end: damaged, truncated, not UTF-8. Nothing is changed. */
export class SourceUnreadable extends Error {}

/** The first `size` bytes of a stream (fewer at its end), and a stream that still yields them. */
export async function peek(input: Readable, size: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < size) {
    const next = await iterator.next();
    if (next.done === true) {
      done = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    chunks.push(chunk);
    length += chunk.length;
  }
  const head = Buffer.concat(chunks);
  const stream = Readable.from(
    (async function* rest() {
      if (head.length > 0) yield head;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) return;
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      }
    })(),
    { objectMode: false },
  );
  return { head: head.subarray(0, size), stream };
}

/** The stream ungzipped; a damaged or truncated gzip stream is a SourceUnreadable. */
export function gunzip(input: Readable, name: string): Readable {
  const gunzipper = createGunzip();
  input.on('error', (error) => gunzipper.destroy(error));
  const out = input.pipe(gunzipper);
  return Readable.from(
    (async function* ungzipped() {
      try {
        for await (const chunk of out as AsyncIterable<Buffer>) yield chunk;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (typeof code === 'string' && code.startsWith('Z_')) {
          throw new SourceUnreadable(
            `${name} is not a complete gzip file (${(error as Error).message}): it is damaged or was cut short`,
          );
        }
        throw error;
      }
    })(),
    { objectMode: false },
  );
}

const NEWLINE = 0x0a;

/**
 * Decodes UTF-8 as it streams, with the line numbers kept: a byte sequence that is not UTF-8
 * is a SourceUnreadable naming its line (a file saved as Latin-1 or Windows-1252, usually).
 * A byte-order mark at the start is dropped.
 */
export async function* utf8Text(input: AsyncIterable<Buffer | string>, name: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let line = 1;
  for await (const raw of input) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      // Where: the first replacement character a lenient decoding of this chunk makes.
      const lenient = new TextDecoder('utf-8').decode(chunk);
      const at = lenient.indexOf('\uFFFD');
      const before = at < 0 ? lenient : lenient.slice(0, at);
      throw notUtf8(name, line + (before.match(/\n/g)?.length ?? 0));
    }
    for (const byte of chunk) if (byte === NEWLINE) line += 1;
    if (text !== '') yield text;
  }
  try {
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } catch {
    throw notUtf8(name, line);
  }
}

const notUtf8 = (name: string, line: number) =>
  new SourceUnreadable(
    `${name} is not valid UTF-8 at line ${line} (probably saved as Latin-1 or Windows-1252): save it as ` +
      `UTF-8 ("CSV UTF-8" in a spreadsheet) and run again`,
  );
