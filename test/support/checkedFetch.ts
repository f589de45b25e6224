// fetch with the OpenAPI document enforced on both sides: the request is checked before it is
// sent (openapiRequestCheck.ts) and its answer after (openapiCheck.ts); either throws, so the test
// fails. The test client (api.ts), the fleet's instances, the SDK's and the generated client's
// fetch and the suites that talk to an API process all send through it.
import { checkResponse } from './openapiCheck.js';
import { requestProblems, type RequestCheckOptions } from './openapiRequestCheck.js';

export interface CheckOptions extends RequestCheckOptions {
  /**
   * The test sends input the API must refuse (a 400, 401, 404, 405, 413, 415 test): the request
   * is sent even where it departs from the document, and its answer must then be a 4xx error
   * that the document lists for the operation (or, off the document's paths, an error in the
   * envelope).
   */
  invalidRequest?: boolean;
}

export interface CheckedAnswer {
  status: number;
  headers: Headers;
  /** The body parsed as JSON; null when empty or not JSON. */
  body: any;
  text: string;
}

/** Throws when the request departs from the document and the call is not marked invalidRequest. */
export async function checkOutgoing(request: Request, options: CheckOptions = {}): Promise<void> {
  if (options.invalidRequest === true) return;
  const url = new URL(request.url);
  const body = request.body === null ? '' : await request.clone().text();
  const problems = requestProblems(
    { method: request.method, pathAndQuery: url.pathname + url.search, headers: request.headers, body },
    options,
  );
  if (problems.length > 0) {
    throw new Error(
      `Request does not conform to openapi.json (mark the call { invalidRequest: true } if it tests a ` +
        `refusal):\n  ${problems.join('\n  ')}`,
    );
  }
}

/** Throws when the answer does not conform to the document, or an invalidRequest call was not refused with a 4xx. */
export function checkIncoming(request: Request, answer: CheckedAnswer, options: CheckOptions = {}): void {
  const url = new URL(request.url);
  checkResponse(request.method, url.pathname + url.search, answer);
  if (options.invalidRequest === true && (answer.status < 400 || answer.status > 499)) {
    throw new Error(
      `${request.method} ${url.pathname}: marked invalidRequest, but answered ${answer.status} instead of a 4xx error`,
    );
  }
}

const parsed = (text: string): unknown => {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
};

/** Sends a request with both checks; returns the answer read (status, headers, text, JSON body). */
export async function checkedExchange(
  input: string | URL | Request,
  init: RequestInit = {},
  options: CheckOptions = {},
): Promise<CheckedAnswer> {
  const request = new Request(input, init);
  await checkOutgoing(request, options);
  const response = await fetch(request);
  const text = await response.text();
  const answer = { status: response.status, headers: response.headers, body: parsed(text), text };
  checkIncoming(request, answer, options);
  return answer;
}

/**
 * A fetch (for the SDK, a generated client) that checks each request and its answer; the Response is returned unread.
 */
export function checkedFetch(options: CheckOptions = {}): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    await checkOutgoing(request, options);
    const response = await fetch(request);
    const text = await response.clone().text();
    checkIncoming(request, { status: response.status, headers: response.headers, body: parsed(text), text }, options);
    return response;
  };
}
