// The demo subscription's records in SQLite: the operations of ../subscriptionSteps.ts (the story
// is in ../demo.ts), run synchronously.
import type { CreatedDemo, DemoRecords } from '../port.js';
import { createDemo, DEMO_LOCK, demoKeyNeverShown, markDemoKeyShown } from '../subscriptionSteps.js';
import type { SqliteSteps } from './steps.js';

export class DemoSubscription implements DemoRecords {
  constructor(
    private readonly steps: SqliteSteps,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  createIfNone(apiKey: string | null): CreatedDemo | null {
    return this.steps.transaction(createDemo(this.clock(), apiKey), { exclusive: DEMO_LOCK });
  }

  markKeyShown(subscriptionId: string): void {
    this.steps.run(markDemoKeyShown(this.clock(), subscriptionId));
  }

  keyNeverShown(): string | null {
    return this.steps.run(demoKeyNeverShown());
  }
}
