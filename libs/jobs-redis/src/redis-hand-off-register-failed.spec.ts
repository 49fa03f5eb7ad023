import type { ClaimedJob, HandOffOffer, WakeHandOff } from '@ultimat3/jobs';
import { until } from '../../../test/until';
import { handOffRig } from '../test/hand-off-rig';
import { countingJob, testRedisSpec, wakeSlots } from '../test/redis-spec';

const QUEUE = 'hand-off-register-failed-q';
const NAME = 'redis-hand-off-register-failed.noop';
const VT = 30_000;

const file = testRedisSpec();
const { request } = countingJob(NAME, QUEUE);

describe('the Redis hand-off, when a registration fails while its pop answers a row', () => {
  const open = wakeSlots();

  it('gives the row the pop answered to the worker instead of leaving it claimed until its lease lapses', async () => {
    const rig = handOffRig(file, open, QUEUE);
    const { clock, other, logger, queueKey: q, rejections } = rig;
    const registration = `${q}:ho:register-failed-worker`;

    // two free slots: the worker stays idle and registered after the first row
    const offers: HandOffOffer[] = [{ queue: QUEUE, free: 2, names: [NAME] }];
    const taken: ClaimedJob[] = [];
    let second: string | undefined;
    const target: WakeHandOff = {
      workerId: 'register-failed-worker',
      visibilityTimeoutMs: VT,
      offers: () => offers,
      takeClaimed: (rows) => {
        taken.push(...rows);
        if (taken.length !== 1) return;
        // while the first row is given, another process enqueues a second one, handed to this worker (still
        // registered, one slot left) and pushed onto its list; then the queue's set of registered workers becomes a
        // string, so the next registration (sent with the pop, in one write) fails with WRONGTYPE while that pop
        // answers the second row at once
        const req = request(2, clock.now());
        second = req.id;
        void other.enqueue(req);
        void file.redis.client.set(`${q}:ho`, 'not a sorted set');
      },
      onIdle: () => () => undefined,
    };
    rig.start(target);
    try {
      await until(async () => (await file.redis.client.exists(registration)) === 1);
      await other.enqueue(request(1, clock.now()));
      await until(() => logger.named('jobs.hand-off.pop-failed').length === 1);
      expect(String(logger.named('jobs.hand-off.pop-failed')[0]?.fields['error'])).toMatch(
        /WRONGTYPE/,
      );
      // the second row was claimed for this worker and taken off its list: it is the worker's now
      await until(() => taken.length === 2, 2_000);
      expect(taken.map((row) => row.id)).toEqual([taken[0]?.id, second]);
      expect(rejections).toEqual([]);
    } finally {
      await file.redis.client.del(`${q}:ho`);
      await rig.stop();
    }
  });
});
