// HTTP below the client libraries: bytes written on a socket as given, and whatever comes back
// before the server closes it, for the answers Node's parser makes the server give (431, 408, 400).
// - rawText: the bytes received, as text.
// - rawExchange: the first answer parsed (status, headers, JSON body or text).
// - splitAnswers: every answer in a received text, each cut at its Content-Length, and what follows.
// - decodeBody: a body as it came, undone of its Content-Encoding (gzip, br) when it has one.
import net from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

/** The body undone of its Content-Encoding: gzip and br decoded, anything else as it came. */
export function decodeBody(raw: Buffer, encoding: string | string[] | undefined): Buffer {
  return encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : raw;
}

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: any;
}

/**
 * On one fresh socket: writes each string step as given; a RegExp step waits until the text
 * received so far matches it. Resolves with everything received before the server closes.
 */
export function rawText(port: number, steps: string | Array<string | RegExp>): Promise<string> {
  const plan = typeof steps === 'string' ? [steps] : steps;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const received = () => Buffer.concat(chunks).toString('utf8');
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(received());
    };
    let next = 0;
    const advance = () => {
      while (next < plan.length && !socket.destroyed) {
        const step = plan[next];
        if (step instanceof RegExp) {
          if (!step.test(received())) return;
        } else {
          socket.write(step);
        }
        next += 1;
      }
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      advance();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', () => finish()); // a reset after the answer is fine: keep what arrived
    socket.setTimeout(10_000, () => socket.destroy());
    socket.once('connect', advance);
  });
}

function parseHead(head: string): { status: number; headers: Map<string, string> } {
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

/** Sends raw bytes on a fresh socket and parses whatever HTTP answer comes back before close. */
export async function rawExchange(port: number, request: string): Promise<RawResponse> {
  const text = await rawText(port, request);
  const split = text.indexOf('\r\n\r\n');
  if (split === -1) throw new Error(`no HTTP response received (got ${JSON.stringify(text.slice(0, 200))})`);
  const { status, headers } = parseHead(text.slice(0, split));
  let body: any;
  try {
    body = JSON.parse(text.slice(split + 4));
  } catch {
    body = text.slice(split + 4);
  }
  return { status, headers, body };
}

export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  /** The body as its Content-Length delimits it ('' for a HEAD, whose Content-Length announces the GET's). */
  body: string;
}

/**
 * The answers in a received text, in order: each head, then `bodyOf(i)` bytes of body: the answer's
 * Content-Length, or 0 for the answers to HEADs (the indexes listed in `heads`). Whatever follows
 * the last answer is `rest`: bytes a client would read as garbage.
 */
export function splitAnswers(text: string, heads: number[] = []): { answers: RawAnswer[]; rest: string } {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (at < text.length) {
    const split = text.indexOf('\r\n\r\n', at);
    if (split === -1 || !text.startsWith('HTTP/1.1 ', at)) break;
    const { status, headers } = parseHead(text.slice(at, split));
    const length = heads.includes(answers.length) ? 0 : Number(headers.get('content-length') ?? 0);
    answers.push({ status, headers, body: text.slice(split + 4, split + 4 + length) });
    at = split + 4 + length;
  }
  return { answers, rest: text.slice(at) };
}
