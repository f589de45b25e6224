// Signing secrets at rest: sealed with AES-256-GCM under a key from SECRETS_KEY, or under a key
// the embedded default generates once in its data directory (mode 0600). A webhook secret cannot
// be hashed like an API key: we sign with it, so we must be able to read it back.
//
// Rotation (grants-admin secrets rotate) re-seals every secret under a new key. Until every
// process has the new key, a box also opens with the previous ones (SECRETS_KEY_PREVIOUS, or
// DATA_DIR/secrets.key.previous and .next), and a box read from DATA_DIR reads its files again
// when a secret opens with none of its keys (the rotation happened in another process).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const VERSION = 'v1';

const keyOf = (base64: string): Buffer => {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== 32) throw new Error('a secrets key is the base64 of 32 bytes');
  return key;
};

export const newSecretsKey = (): string => randomBytes(32).toString('base64');

/** The key files of a data directory: the key in use, the one being rotated to, the one rotated from. */
const keyFiles = (dataDir: string) => ({
  current: path.join(dataDir, 'secrets.key'),
  next: path.join(dataDir, 'secrets.key.next'),
  previous: path.join(dataDir, 'secrets.key.previous'),
});

export class SecretBox {
  private constructor(
    private keys: Buffer[],
    private readonly reload: (() => Buffer[]) | null = null,
  ) {}

  /** Seals with the first key; opens with any of them. */
  static fromKeys(current: string, ...previous: string[]): SecretBox {
    return new SecretBox([keyOf(current), ...previous.map(keyOf)]);
  }

  static fromKey(base64: string): SecretBox {
    return SecretBox.fromKeys(base64);
  }

  /**
   * The keys of DATA_DIR: secrets.key, created (0600) when absent, and those of a rotation under
   * way or done (secrets.key.next, secrets.key.previous). Returns whether the key was created, so
   * that the start can say so.
   */
  static inDataDir(dataDir: string): { box: SecretBox; file: string; created: boolean } {
    const files = keyFiles(dataDir);
    let created = false;
    if (!existsSync(files.current)) {
      writeFileSync(files.current, `${newSecretsKey()}\n`, { mode: 0o600, flag: 'wx' });
      created = true;
    }
    const read = (): Buffer[] =>
      [files.current, files.next, files.previous]
        .filter((file) => existsSync(file))
        .map((file) => keyOf(readFileSync(file, 'utf8')));
    return { box: new SecretBox(read(), read), file: files.current, created };
  }

  /** "v1.<iv>.<tag>.<ciphertext>", base64url parts. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0], iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      sealed.toString('base64url'),
    ].join('.');
  }

  open(sealed: string): string {
    const opened = this.tryOpen(sealed);
    if (opened !== null) return opened;
    if (this.reload !== null) {
      this.keys = this.reload();
      const again = this.tryOpen(sealed);
      if (again !== null) return again;
    }
    throw new Error('a sealed secret opens with none of the secrets keys');
  }

  private tryOpen(sealed: string): string | null {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || data === undefined) throw new Error('not a sealed secret');
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // another key
      }
    }
    return null;
  }
}

/**
 * Rotates the key of a data directory, crash-safe at every step: the new key is written beside
 * the current one (secrets.key.next), `reseal` re-seals every secret with a box that seals with
 * the new key and opens with both, then the files move (current → previous, next → current).
 */
export async function rotateDataDirKey(dataDir: string, reseal: (box: SecretBox) => Promise<number>): Promise<number> {
  const files = keyFiles(dataDir);
  if (!existsSync(files.current)) throw new Error(`no ${files.current}: nothing to rotate`);
  if (!existsSync(files.next)) writeFileSync(files.next, `${newSecretsKey()}\n`, { mode: 0o600 });
  chmodSync(files.next, 0o600);
  const box = SecretBox.fromKeys(
    readFileSync(files.next, 'utf8'),
    readFileSync(files.current, 'utf8'),
    ...(existsSync(files.previous) ? [readFileSync(files.previous, 'utf8')] : []),
  );
  const count = await reseal(box);
  renameSync(files.current, files.previous);
  renameSync(files.next, files.current);
  return count;
}
