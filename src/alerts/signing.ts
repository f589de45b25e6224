// Standard Webhooks signatures with the standardwebhooks package: `v1,<base64 HMAC-SHA256 of
// id.timestamp.body>` per secret, space-separated while a rotation's two secrets are both valid.
import { Webhook } from 'standardwebhooks';

export function signatureHeaders(messageId: string, at: Date, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' '),
  };
}
