import type { ClaimedJob, HandOffOffer, WakeHandOff } from '@ultimat3/jobs';
import { until } from '../../../test/until';
import { handOffRig } from '../test/hand-off-rig';
import { countingJob, testRedisSpec, wakeSlots } from '../test/redis-spec';

const QUEUE = 'hand-off-leave-q';
const NAME = 'redis-hand-off-leave.noop';
const VT = 30_000;

const file = testRedisSpec();
const { request } = countingJob(NAME, QUEUE);

describe('the Redis hand-off, when the leave of a worker going busy fails', () => {
  const open = wakeSlots();

  it('logs it, keeps its loop, and registers the worker again once it is idle', async () => {
    const rig = handOffRig(file, open, QUEUE);
    const { clock, other, logger, queueKey: q, rejections } = rig;
    const registration = `${q}:ho:leaving-worker`;
    const registered = async () => (await file.redis.client.exists(registration)) === 1;

    const idleOffers: HandOffOffer[] = [{ queue: QUEUE, free: 1, names: [NAME] }];
    let offers: HandOffOffer[] = idleOffers;
    let wentIdle: () => void = () => undefined;
    const taken: ClaimedJob[] = [];
    const target: WakeHandOff = {
      workerId: 'leaving-worker',
      visibilityTimeoutMs: VT,
      offers: () => offers,
      takeClaimed: (rows) => {
        taken.push(...rows);
        // the worker is busy now, so the hand-off leaves; that leave, sent after this on the same connection, fails:
        // the queue's set of registered workers is a string now (WRONGTYPE in the leave script)
        offers = [];
        void file.redis.client.set(`${q}:ho`, 'not a sorted set');
      },
      onIdle: (idle) => {
        wentIdle = idle;
        return () => undefined;
      },
    };
    rig.start(target);
    try {
      await until(registered);
      await other.enqueue(request(1, clock.now()));
      await until(() => logger.named('jobs.hand-off.leave-failed').length === 1);
      expect(taken).toHaveLength(1);
      expect(String(logger.named('jobs.hand-off.leave-failed')[0]?.fields['error'])).toMatch(
        /WRONGTYPE/,
      );

      // the set repaired and the worker idle again: the same loop registers it, and the next row is handed to it
      await file.redis.client.del(`${q}:ho`);
      offers = idleOffers;
      wentIdle();
      await until(registered);
      await other.enqueue(request(2, clock.now()));
      await until(() => taken.length === 2);
      expect(rejections).toEqual([]);
    } finally {
      await rig.stop();
    }
  });
});
