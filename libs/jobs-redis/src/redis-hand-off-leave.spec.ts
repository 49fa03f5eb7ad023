import {
  recordingLogger,
  type ClaimedJob,
  type HandOffOffer,
  type WakeHandOff,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { countingJob, testRedisSpec, wakeSlots } from '../test/redis-spec';
import { redisContext } from './redis-context';
import { redisJobDriver } from './redis-driver';
import { startHandOff } from './redis-hand-off';
import { redisKeyPrefix } from './redis-keys';

const QUEUE = 'hand-off-leave-q';
const NAME = 'redis-hand-off-leave.noop';
const VT = 30_000;

const file = testRedisSpec();
const { request } = countingJob(NAME, QUEUE);

describe('the Redis hand-off, when the leave of a worker going busy fails', () => {
  const open = wakeSlots();

  it('logs it, keeps its loop, and registers the worker again once it is idle', async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    const other = redisJobDriver({ client: file.redis.client, prefix, clock });
    open.other = other;
    const logger = recordingLogger();
    const p = redisKeyPrefix(prefix);
    const q = `${p}q:${Buffer.byteLength(QUEUE)}:${QUEUE}`;
    const registration = `${q}:ho:leaving-worker`;
    const registered = async () => (await file.redis.client.exists(registration)) === 1;
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);

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
    const handOff = startHandOff(redisContext(file.redis.client, p, clock), target, logger);
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
      process.off('unhandledRejection', onRejection);
      await handOff.stop();
    }
  });
});
