// The method of the request each connection is sending, for the answers Node's parser makes us give
// before it has parsed the request (431 for headers over the bound, 408 for a slow client, 400 for
// garbage: src/server.ts). Node hands the method over only with complete headers, so it is read
// here from the first bytes of each request as they arrive: at the start of the connection, and
// after each request whose headers ended a packet and which has no body. Where a request's start
// was not seen (pipelined behind another in the same packet, or after a request with a body) its
// method is unknown, and the answer must then be safe for HEAD too: no body.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Bytes of a request line's method read at most: no method is longer; "HEAD" needs 5 with its space. */
const METHOD_BYTES = 16;
const SPACE = 0x20;
const CR = 0x0d;
const LF = 0x0a;

interface Reading {
  /** The method's bytes so far, while the start of a request is being read. */
  head: string;
  /** Reading the start of a request now (at the connection's start, and after a request that ended a packet). */
  atStart: boolean;
  /** The method of the request being received; null while unknown. */
  method: string | null;
  /** Whether the last packet ended with the blank line that ends a request's headers. */
  packetEndedHeaders: boolean;
}

const endsWithBlankLine = (chunk: Buffer): boolean =>
  chunk.length >= 4 && chunk[chunk.length - 4] === CR && chunk[chunk.length - 3] === LF && chunk[chunk.length - 2] === CR && chunk[chunk.length - 1] === LF;

/** Reads the method from a packet starting (or continuing) the request line. */
function readMethod(reading: Reading, chunk: Buffer): void {
  let i = 0;
  // HTTP lets empty lines come before a request line.
  if (reading.head === '') while (i < chunk.length && (chunk[i] === CR || chunk[i] === LF)) i += 1;
  for (; i < chunk.length && reading.atStart; i += 1) {
    if (chunk[i] === SPACE || reading.head.length >= METHOD_BYTES) {
      reading.method = reading.head;
      reading.atStart = false;
    } else {
      reading.head += String.fromCharCode(chunk[i]);
    }
  }
}

/** A request with a body: what follows its headers is not the next request. */
const hasBody = (req: IncomingMessage): boolean => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

export class ConnectionMethods {
  private readonly readings = new WeakMap<Socket, Reading>();

  /** Follows a new connection: reads the start of each request as its packets arrive. */
  track(socket: Socket): void {
    const reading: Reading = { head: '', atStart: true, method: null, packetEndedHeaders: false };
    this.readings.set(socket, reading);
    socket.prependListener('data', (chunk: Buffer) => {
      if (reading.atStart) readMethod(reading, chunk);
      reading.packetEndedHeaders = endsWithBlankLine(chunk);
    });
  }

  /** A request's headers are complete: the next request starts with the next packet, if this one ended there. */
  parsed(req: IncomingMessage): void {
    const reading = this.readings.get(req.socket);
    if (reading === undefined) return;
    reading.head = '';
    reading.method = null;
    reading.atStart = reading.packetEndedHeaders && !hasBody(req);
  }

  /**
   * Whether the request the connection is sending is a HEAD: 'head', 'not-head', or 'unknown' when
   * its start was not seen or what arrived of its method ("", "H", "HE", "HEA") could still be HEAD.
   */
  headOrNot(socket: Socket): 'head' | 'not-head' | 'unknown' {
    const reading = this.readings.get(socket);
    if (reading === undefined) return 'unknown';
    if (reading.method !== null) return reading.method === 'HEAD' ? 'head' : 'not-head';
    return reading.atStart && !'HEAD'.startsWith(reading.head) ? 'not-head' : 'unknown';
  }
}
