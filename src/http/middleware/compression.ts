// Response compression (koa-compress): a body of 1 KB or more is sent gzip- or brotli-encoded when
// the request's Accept-Encoding allows it (brotli first when both are accepted), streamed bodies
// included; smaller bodies, HEAD answers and 304s go as they are. Every answer varies on
// Accept-Encoding. The levels were chosen by measurement (npm run bench:compression,
// docs/journal/bench.md): cheap enough in CPU per request for most of the bytes saved.
import { constants } from 'node:zlib';
import compress from 'koa-compress';
import type { Middleware } from 'koa';
import type { AppState } from '../state.js';

export interface CompressionSettings {
  /** zlib level, 1 (fastest) to 9 (smallest). */
  gzipLevel: number;
  /** Brotli quality, 0 (fastest) to 11 (smallest). */
  brotliQuality: number;
}

export const DEFAULT_COMPRESSION: CompressionSettings = Object.freeze({ gzipLevel: 4, brotliQuality: 4 });

/** The content types worth compressing: text, JSON (the API, its errors, NDJSON exports), JavaScript, XML. */
const COMPRESSIBLE = /^(text\/|application\/(json|[a-z0-9.+-]*\+json|(x-)?ndjson|javascript|xml)\b)/i;

/** Bodies smaller than this many bytes are not compressed. */
export const COMPRESSION_THRESHOLD = 1024;

export function compression(settings: CompressionSettings = DEFAULT_COMPRESSION): Middleware<AppState> {
  const compressor = compress({
    threshold: COMPRESSION_THRESHOLD,
    filter: (type: string) => COMPRESSIBLE.test(type),
    gzip: { level: settings.gzipLevel },
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: settings.brotliQuality } },
    deflate: false,
  }) as Middleware<AppState>;
  return function compression(ctx, next) {
    const accepted = ctx.get('Accept-Encoding');
    // No Accept-Encoding: koa-compress would negotiate identity and change nothing but Vary.
    if (accepted === '') {
      ctx.vary('Accept-Encoding');
      return next();
    }
    // An Accept-Encoding that refuses every coding we have, identity included (`*;q=0`): the answer
    // goes as it is (RFC 9110 §12.5.3 allows it) rather than through koa-compress, which would throw.
    // Only a weight can refuse identity (one that reads as 0, or as no number), and a weight comes
    // after a `;`: a header without one (`gzip, deflate, br`) skips the parse.
    if (accepted.includes(';') && ctx.acceptsEncodings('br', 'gzip', 'identity') === false)
      (ctx as { compress?: boolean }).compress = false;
    return compressor(ctx, next);
  };
}
