import { memoryJobDriver } from '../driver/memory';
import { enqueueRequest } from '../testing/enqueue-request';
import { frozenClock } from '../testing/frozen-clock';
import { silentLogger } from '../util/logger';
import { HandBacks } from './hand-backs';

describe('HandBacks', () => {
  it("tells each released row's queue once its hand-back landed, the row waiting again", async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const { id } = await driver.enqueue(
      enqueueRequest({ name: 'q.job', queue: 'q', input: {}, runAt: clock.now() }),
    );
    const [row] = await driver.claim({
      workerId: 'w',
      visibilityTimeoutMs: 30_000,
      slots: [{ queue: 'q', limit: 1 }],
    });
    const landed: string[] = [];
    const backs = new HandBacks(driver, silentLogger, (queue) => landed.push(queue));
    backs.release([row!]);
    expect(landed).toEqual([]);
    await Promise.all([...backs.pending]);
    expect(landed).toEqual(['q']);
    expect(await driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
  });
});
