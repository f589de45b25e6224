// Signing secrets at rest: sealed with AES-256-GCM under a key from SECRETS_KEY, or under a key
// the embedded default generates once in its data directory (mode 0600). A webhook secret cannot
// be hashed like an API key: we sign with it, so we must be able to read it back.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const VERSION = 'v1';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static fromKey(base64: string): SecretBox {
    const key = Buffer.from(base64, 'base64');
    if (key.length !== 32) throw new Error('a secrets key is the base64 of 32 bytes');
    return new SecretBox(key);
  }

  /**
   * The key in DATA_DIR/secrets.key, created (0600) when absent. Returns whether it was created,
   * so that the start can say so.
   */
  static inDataDir(dataDir: string): { box: SecretBox; file: string; created: boolean } {
    const file = path.join(dataDir, 'secrets.key');
    let created = false;
    if (!existsSync(file)) {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      created = true;
    }
    return { box: SecretBox.fromKey(readFileSync(file, 'utf8').trim()), file, created };
  }

  /** "v1.<iv>.<tag>.<ciphertext>", base64url parts. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
