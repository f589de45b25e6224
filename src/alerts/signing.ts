// Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret
// (`whsec_` + base64 of the key), space-separated while a rotation's two secrets are both valid.
// Computed with Node's crypto: the standardwebhooks package signs the same bytes with a SHA-256
// written in JavaScript, several times slower on every delivery; the tests verify our signatures
// with that package, so the two cannot drift apart.
import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

const sign = (secret: string, content: string): string =>
  createHmac(
    'sha256',
    Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'),
  )
    .update(content)
    .digest('base64');

export function signatureHeaders(
  messageId: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const content = `${messageId}.${timestamp}.${body}`;
  return {
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((secret) => `v1,${sign(secret, content)}`).join(' '),
  };
}
