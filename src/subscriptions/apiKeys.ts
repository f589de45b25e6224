// API keys: generation, hashing, display prefix. Keys are shown once and stored only as SHA-256.
import { hash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'gk_live_';
/** How much of a key admin listings show. */
const DISPLAY_PREFIX_LENGTH = 12;
export const MAX_KEY_LENGTH = 256;

export const generateApiKey = (): string => KEY_PREFIX + randomBytes(24).toString('base64url');

export const hashApiKey = (key: string): string => hash('sha256', key, 'hex');

export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_PREFIX_LENGTH);

export const newId = (kind: 'sub' | 'key'): string => `${kind}_${randomBytes(12).toString('base64url')}`;
