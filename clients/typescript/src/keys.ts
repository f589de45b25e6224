// The subscription's own keys (the keys:manage scope). POST /keys takes no Idempotency-Key (the
// API would have to keep the new key in clear to replay it), so a create is never retried after
// a 503: list the keys to see whether it was made.
import type { ApiClient } from './api.js';
import { unwrap } from './errors.js';
import type { KeyCreatedAnswer, KeyInput, KeyListAnswer, KeyRevokedAnswer } from './types.js';

export interface KeysApi {
  /** GET /keys: the active keys (id, prefix, name, restrictions, dates; never a key itself). */
  list(): Promise<KeyListAnswer>;
  /** POST /keys: a key with at most the calling key's restrictions; `data.apiKey` is shown this once. */
  create(input: KeyInput): Promise<KeyCreatedAnswer>;
  /** DELETE /keys/{id}: revoked at once (not the subscription's last unrestricted key). */
  revoke(id: string): Promise<KeyRevokedAnswer>;
}

export function keysApi(api: ApiClient): KeysApi {
  return {
    list: () => unwrap(api.GET('/keys')),
    create: (input) => unwrap(api.POST('/keys', { body: input })),
    revoke: (id) => unwrap(api.DELETE('/keys/{id}', { params: { path: { id } } })),
  };
}
