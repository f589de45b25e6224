// The alert endpoints. Each POST carries an Idempotency-Key (yours, or a random one made per
// call), so a retry after a 503 never creates or sends twice.
import type { ApiClient } from './api.js';
import { unwrap } from './errors.js';
import type {
  AlertAnswer,
  AlertCreatedAnswer,
  AlertDeletedAnswer,
  AlertInput,
  AlertListAnswer,
  AlertListQuery,
  AlertPatch,
  DeliveryAnswer,
  DeliveryListAnswer,
  DeliveryListQuery,
  SecretRotationAnswer,
} from './types.js';

export interface IdempotencyOptions {
  /**
   * The Idempotency-Key header: the same key and body within 24 hours replay the first answer. A random one by default.
   */
  idempotencyKey?: string;
}

export interface AlertsApi {
  /** POST /alerts: the answer carries the signing secret (`whsec_…`), shown this once. */
  create(input: AlertInput, options?: IdempotencyOptions): Promise<AlertCreatedAnswer>;
  list(query?: AlertListQuery): Promise<AlertListAnswer>;
  get(id: string): Promise<AlertAnswer>;
  update(id: string, patch: AlertPatch): Promise<AlertAnswer>;
  delete(id: string): Promise<AlertDeletedAnswer>;
  /** POST /alerts/{id}/secret: a new secret; the previous one keeps signing until previousSecretValidUntil. */
  rotateSecret(id: string, options?: IdempotencyOptions): Promise<SecretRotationAnswer>;
  /** POST /alerts/{id}/test: queues an alert.test event to the alert's URL (202). */
  test(id: string, options?: IdempotencyOptions): Promise<DeliveryAnswer>;
  /** GET /alerts/{id}/deliveries: the delivery log, newest first. */
  deliveries(id: string, query?: DeliveryListQuery): Promise<DeliveryListAnswer>;
  /** POST /alerts/{id}/deliveries/{deliveryId}/retry: sends a message again (same webhook-id). */
  retryDelivery(id: string, deliveryId: string, options?: IdempotencyOptions): Promise<DeliveryAnswer>;
}

const keyHeader = (options: IdempotencyOptions = {}) => ({
  'Idempotency-Key': options.idempotencyKey ?? globalThis.crypto.randomUUID(),
});

export function alertsApi(api: ApiClient): AlertsApi {
  return {
    create: (input, options) => unwrap(api.POST('/alerts', { body: input, params: { header: keyHeader(options) } })),
    list: (query = {}) => unwrap(api.GET('/alerts', { params: { query } })),
    get: (id) => unwrap(api.GET('/alerts/{id}', { params: { path: { id } } })),
    update: (id, patch) => unwrap(api.PATCH('/alerts/{id}', { params: { path: { id } }, body: patch })),
    delete: (id) => unwrap(api.DELETE('/alerts/{id}', { params: { path: { id } } })),
    rotateSecret: (id, options) =>
      unwrap(api.POST('/alerts/{id}/secret', { params: { path: { id }, header: keyHeader(options) } })),
    test: (id, options) =>
      unwrap(api.POST('/alerts/{id}/test', { params: { path: { id }, header: keyHeader(options) } })),
    deliveries: (id, query = {}) => unwrap(api.GET('/alerts/{id}/deliveries', { params: { path: { id }, query } })),
    retryDelivery: (id, deliveryId, options) =>
      unwrap(
        api.POST('/alerts/{id}/deliveries/{deliveryId}/retry', {
          params: { path: { id, deliveryId }, header: keyHeader(options) },
        }),
      ),
  };
}
