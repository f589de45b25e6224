// @grants-api/client: a typed client for the Grants partner API.
export { createGrantsClient, apiBaseUrl, API_PREFIX, type GrantsClient, type GrantsClientOptions } from './client.js';
export { GrantsApiError } from './errors.js';
export { retryAfterMs, RETRY_DEFAULTS, type RetryInfo, type RetryOptions } from './retry.js';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.js';
export type { GrantsApi } from './grants.js';
export type { ChangesApi, SyncResult } from './changes.js';
export type { SubscriptionApi } from './subscription.js';
export type { AlertsApi, IdempotencyOptions } from './alerts.js';
export type { KeysApi } from './keys.js';
export type { CommonGrantsApi } from './commonGrants.js';
export type { ApiClient } from './api.js';
export type * from './types.js';
export type { paths, components, operations, webhooks } from './schema.js';
