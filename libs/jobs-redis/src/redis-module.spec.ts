import { Test } from '@nestjs/testing';
import { job, JobsModule, JobsService, t } from '@ultimat3/jobs';
import { until } from '../../../test/until';
import { testRedisSpec } from '../test/redis-spec';
import { redisBackend } from './redis-backend';

const file = testRedisSpec();

const ran: number[] = [];
const echo = job({
  name: 'redis-module.echo',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: async ({ input, step }) => {
    ran.push(await step.run('double', () => input.n * 2));
  },
});

describe('JobsModule on the Redis backend (passed as a backend object)', () => {
  it('boots web, worker and scheduler roles, runs an enqueued job to done, and shuts down', async () => {
    const { redis } = file;
    const backend = await redisBackend({ client: redis.client, prefix: redis.prefix() });
    const app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({ backend, roles: ['web', 'worker', 'scheduler'] }),
        JobsModule.forFeature({ jobs: [{ echo }] }),
      ],
    }).compile();
    await app.init();
    try {
      const { id } = await app.get(JobsService).enqueue(echo, { n: 21 });
      await until(async () => (await backend.driver.get(id))?.state === 'done');
      expect(ran).toEqual([42]);
      expect((await backend.driver.steps.load(id)).map((s) => s.output)).toEqual([42]);
    } finally {
      // the module owns the backend: it closes the driver, then the backend (a second close is a no-op)
      await app.close();
      await backend.close();
    }
  });
});
