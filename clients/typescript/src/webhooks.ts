// Verifying an alert's webhook delivery: Standard Webhooks signatures (webhook-id,
// webhook-timestamp, webhook-signature; secrets `whsec_…`), checked by the standardwebhooks package.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './types.js';

export { WebhookVerificationError };

/** The request's headers: a fetch Headers, or Node's req.headers (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function signatureHeaders(headers: WebhookHeaders): Record<(typeof NAMES)[number], string> {
  const read = (name: string): string => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
    const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(entry) ? entry.join(' ') : ((entry as string | undefined) ?? '');
  };
  const out = {} as Record<(typeof NAMES)[number], string>;
  for (const name of NAMES) {
    out[name] = read(name);
    if (out[name] === '') throw new WebhookVerificationError(`Missing required header ${name}`);
  }
  return out;
}

/**
 * Checks that `body` (the raw request body, exactly as received: do not re-serialise parsed JSON)
 * was signed with `secret` less than five minutes ago, and returns the event it carries. Throws
 * WebhookVerificationError otherwise. During a rotation you may pass both secrets: either verifies.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
): WebhookEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const signed = signatureHeaders(headers);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new WebhookVerificationError('No secret to verify with');
  let failure: unknown;
  for (const one of secrets) {
    try {
      return new Webhook(one).verify(payload, signed) as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}
