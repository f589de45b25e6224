// createGrantsClient: the typed openapi-fetch client for openapi.json with the API key, comma-
// separated lists, retries and the wrappers (grants, changes, subscription, alerts, keys,
// commonGrants).
import createClient from 'openapi-fetch';
import { alertsApi, type AlertsApi } from './alerts.js';
import { keysApi, type KeysApi } from './keys.js';
import type { ApiClient } from './api.js';
import { changesApi, type ChangesApi } from './changes.js';
import { commonGrantsApi, type CommonGrantsApi } from './commonGrants.js';
import { grantsApi, type GrantsApi } from './grants.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import { subscriptionApi, type SubscriptionApi } from './subscription.js';

/** Where the API's operations are, under the server's origin. */
export const API_PREFIX = '/external/v1';

export interface GrantsClientOptions {
  /**
   * The server, e.g. `https://grants.example.com` (the client adds /external/v1; a URL already ending in it is taken as
   * is).
   */
  baseUrl: string;
  /** Your API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Retries of 429 and 503 answers honouring Retry-After (see RetryOptions); false for none. */
  retry?: RetryOptions | false;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

export interface GrantsClient {
  grants: GrantsApi;
  changes: ChangesApi;
  subscription: SubscriptionApi;
  alerts: AlertsApi;
  /** The subscription's own keys (needs the keys:manage scope). */
  keys: KeysApi;
  /** The catalog in the CommonGrants protocol (list, get by UUID or id, search). */
  commonGrants: CommonGrantsApi;
  /**
   * The generated openapi-fetch client itself (GET, POST, ... on every path of openapi.json), with the same key and
   * retries; it returns { data, error, response } instead of throwing.
   */
  raw: ApiClient;
}

export function apiBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API_PREFIX) ? trimmed : trimmed + API_PREFIX;
}

export function createGrantsClient(options: GrantsClientOptions): GrantsClient {
  if (typeof options?.baseUrl !== 'string' || options.baseUrl === '')
    throw new TypeError('createGrantsClient: baseUrl is required (e.g. https://grants.example.com)');
  if (typeof options.apiKey !== 'string' || options.apiKey === '')
    throw new TypeError('createGrantsClient: apiKey is required');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw: ApiClient = createClient({
    baseUrl: apiBaseUrl(options.baseUrl),
    headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
    // The API's list parameters are comma-separated (style form, explode false).
    querySerializer: { array: { style: 'form', explode: false } },
    fetch: retryingFetch(baseFetch, options.retry ?? {}),
  });
  return {
    grants: grantsApi(raw),
    changes: changesApi(raw),
    subscription: subscriptionApi(raw),
    alerts: alertsApi(raw),
    keys: keysApi(raw),
    commonGrants: commonGrantsApi(raw),
    raw,
  };
}
