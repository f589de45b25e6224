// The young generation's size once it has grown as far as it may: what test/process/thread-heap
// measures in the main thread and in a thread the service starts.
import v8 from 'node:v8';

/**
 * Keeps three million small objects alive (every scavenge's survivors, which grow the young
 * generation to its limit), then the young generation's size (new space), in MiB.
 */
export function grownNewSpaceMb(): number {
  const kept: { i: number }[] = [];
  for (let i = 0; i < 3_000_000; i++) kept.push({ i });
  const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  return kept.length > 0 && newSpace !== undefined ? newSpace.space_size / 1048576 : 0;
}
