// The Elasticsearch client as this service uses it, and what its failures mean for partners.
import { Client, errors } from '@elastic/elasticsearch';
import { ServiceUnavailableError } from '../../failures.js';

export interface EsConfig {
  url: string;
  index: string;
  requestTimeoutMs: number;
}

/** No retries: a partner gets a 503 within the timeout rather than waiting through several. */
export const createEsClient = (
  config: EsConfig,
  overrides: { requestTimeoutMs?: number; maxRetries?: number } = {},
): Client =>
  new Client({
    node: config.url,
    requestTimeout: overrides.requestTimeoutMs ?? config.requestTimeoutMs,
    maxRetries: overrides.maxRetries ?? 0,
    // One node behind one URL: try it again at once rather than waiting for a resurrection ping.
    resurrectStrategy: 'optimistic',
  });

/** A request as the transport takes it, its body serialised by the client. */
interface TextRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

/**
 * The answer's JSON text, unparsed (sources.ts cuts the grants out of it); a status of 400 or more
 * throws the ResponseError the client would, with the parsed body, and transport failures throw
 * as the client's do: a streamed body is read here, not by the client, so a connection lost or
 * stalled while it comes throws the client's ConnectionError or TimeoutError here too.
 */
export async function requestText(
  client: Client,
  request: TextRequest,
  options: { requestTimeout?: number } = {},
): Promise<string> {
  const result = await client.transport.request(request, { ...options, asStream: true, meta: true });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of result.body as AsyncIterable<Buffer>) chunks.push(chunk);
  } catch (error) {
    const message = `the answer was cut short: ${(error as Error).message}`;
    throw (error as { code?: unknown }).code === 'UND_ERR_BODY_TIMEOUT'
      ? new errors.TimeoutError(message, result)
      : new errors.ConnectionError(message, result);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (result.statusCode !== null && result.statusCode >= 400) {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the error carries the text
    }
    throw new errors.ResponseError({ ...result, body });
  }
  return text;
}

export const errorType = (error: unknown): string | undefined =>
  error instanceof errors.ResponseError
    ? (error.body as { error?: { type?: string } } | undefined)?.error?.type
    : undefined;

/**
 * Converts transport failures, an answer that is not Elasticsearch's JSON (cut, garbled, or from
 * something else at the URL), overload, and a missing alias or a closed index behind it into
 * ServiceUnavailableError.
 */
export function unavailableFrom(error: unknown, alias: string): unknown {
  if (
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError
  ) {
    return new ServiceUnavailableError(`elasticsearch unreachable: ${error.name}`, 5);
  }
  if (error instanceof errors.DeserializationError || error instanceof errors.ProductNotSupportedError) {
    return new ServiceUnavailableError(`elasticsearch gave an unreadable answer: ${error.name}`, 5);
  }
  if (error instanceof errors.ResponseError) {
    if (error.statusCode === 429 || (error.statusCode ?? 0) >= 500) {
      return new ServiceUnavailableError(`elasticsearch answered ${error.statusCode}`, 5);
    }
    if (errorType(error) === 'index_not_found_exception') {
      return new ServiceUnavailableError(
        `elasticsearch alias "${alias}" does not exist; run grants-indexer reindex`,
        30,
      );
    }
    if (errorType(error) === 'index_closed_exception') {
      return new ServiceUnavailableError(
        `the index behind elasticsearch alias "${alias}" is closed; open it (POST /<index>/_open)`,
        30,
      );
    }
  }
  return error;
}
