// The Redis connection shared by the rate limiter and the allowance counter, and the state of
// the fallback: logged once per outage, shown on /readyz, ended by itself when Redis answers.
import { Redis } from 'ioredis';
import type { Logger } from '../log.js';

interface RedisSettings {
  url: string;
  keyPrefix: string;
  commandTimeoutMs: number;
}

export class RedisLink {
  readonly client: Redis;
  private degradedSince: Date | null = null;
  private readonly readyListeners: (() => void)[] = [];

  constructor(
    readonly settings: RedisSettings,
    private readonly log: Logger,
  ) {
    this.client = new Redis(settings.url, {
      enableOfflineQueue: false,
      commandTimeout: settings.commandTimeoutMs,
      connectTimeout: Math.max(1000, settings.commandTimeoutMs * 10),
      maxRetriesPerRequest: 0,
      lazyConnect: false,
      retryStrategy: (attempt) => Math.min(250 * attempt, 2000),
    });
    this.client.on('error', (error) => this.markDown(error.message));
    this.client.on('ready', () => {
      for (const listener of this.readyListeners) listener();
    });
  }

  /** Runs when the connection becomes ready (and again after every reconnection). */
  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
    if (this.client.status === 'ready') listener();
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** Records a failure; logs only the first of an outage. */
  markDown(reason: string): void {
    if (this.degradedSince !== null) return;
    this.degradedSince = new Date();
    this.log.warn(
      'redis unavailable: limits fall back to this instance (in-memory rate share, allowance from the ' +
        'subscriptions store)',
      { reason },
    );
  }

  /** Records a success; logs the end of an outage. */
  markUp(): void {
    if (this.degradedSince === null) return;
    this.log.info('redis available again: shared limits resumed', {
      outageMs: Date.now() - this.degradedSince.getTime(),
    });
    this.degradedSince = null;
  }

  get state(): { limits: 'redis' | 'local-fallback'; degradedSince: string | null } {
    // Until the connection is ready, requests take the fallback path too.
    return {
      limits: this.degradedSince === null && this.ready ? 'redis' : 'local-fallback',
      degradedSince: this.degradedSince?.toISOString() ?? null,
    };
  }

  key(...parts: string[]): string {
    return this.settings.keyPrefix + parts.join(':');
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
