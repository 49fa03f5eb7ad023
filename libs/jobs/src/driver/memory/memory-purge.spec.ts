import { frozenClock } from '../../testing/frozen-clock';
import { enqueueRequest } from '../../../test/requests';
import { claimOf } from '../job-row';
import { resolveRetention } from '../retention';
import { memoryJobDriver } from './memory-driver';

const DAY = 24 * 3_600_000;

/** The memory driver's retention targets, over rows reached through its own operations, one queue a row. */
function rig() {
  const clock = frozenClock();
  const driver = memoryJobDriver({ clock });
  let n = 0;
  const enqueue = async (): Promise<string> => {
    const request = enqueueRequest({
      queue: `purge-${n++}`,
      idempotencyKey: `k${n}`,
      runAt: clock.now(),
    });
    await driver.enqueue(request);
    return request.id;
  };
  const running = async () => {
    const id = await enqueue();
    const queue = (await driver.get(id))?.queue ?? '';
    const [row] = await driver.claim({
      workerId: 'seed',
      visibilityTimeoutMs: 90 * DAY,
      slots: [{ queue, limit: 1 }],
    });
    if (row?.id !== id) throw new Error('seed: claimed another row');
    return row;
  };
  const nacked = async (kind: 'dead' | 'fail'): Promise<string> => {
    const row = await running();
    await driver.nack(row.id, { ...claimOf(row), error: 'x', kind });
    return row.id;
  };
  const targets = driver.purgeTargets?.(resolveRetention({ finishedMs: DAY, deadMs: 2 * DAY }));
  const sweep = async (): Promise<number> => {
    let removed = 0;
    for (const target of targets ?? []) removed += await target.purgeExpired(clock.now());
    return removed;
  };
  const present = async (ids: readonly string[]): Promise<string[]> => {
    const kept: string[] = [];
    for (const id of ids) if (await driver.get(id)) kept.push(id);
    return kept;
  };
  return { clock, driver, enqueue, running, nacked, sweep, present };
}

describe('the memory driver’s retention targets', () => {
  it('remove done, failed and cancelled rows once finishedMs has passed, dead ones after deadMs, nothing live', async () => {
    const r = rig();
    const done = await r.running();
    await r.driver.ack(done.id, claimOf(done));
    const failed = await r.nacked('fail');
    const cancelled = await r.enqueue();
    await r.driver.introspect?.cancel(cancelled);
    const dead = await r.nacked('dead');
    const live = [await r.enqueue(), (await r.running()).id];
    const finished = [done.id, failed, cancelled];

    // finished exactly finishedMs ago: kept, the cutoff is exclusive
    await r.clock.advance(DAY);
    expect(await r.sweep()).toBe(0);
    await r.clock.advance(1);
    expect(await r.sweep()).toBe(3);
    expect(await r.present(finished)).toEqual([]);
    expect(await r.present([dead])).toEqual([dead]);

    await r.clock.advance(DAY);
    expect(await r.sweep()).toBe(1);
    expect(await r.present([dead, ...live])).toEqual(live);
  });
});
