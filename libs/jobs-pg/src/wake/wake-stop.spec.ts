import type { Socket } from 'node:net';
import { Client } from 'pg';
import { job, JobRegistry, jobWorker, recordingLogger, t } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { settledWithin, until } from '../../../../test/until';
import { JOB_TABLES } from '../../test/test-database';
import { partitionHop } from '../../../../test/partition-hop';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresJobDriver } from '../driver/pg-driver';
import { startQueueWake, type QueueWake } from './queue-wake';
import { WAKE_END_MS } from './queue-wake-config';
import { startWorkerWake } from './worker-wake';

/** The socket under a `pg.Client` (not part of its typed surface). */
const socketOf = (client: Client): Socket =>
  (client as unknown as { connection: { stream: Socket } }).connection.stream;

const target = {
  signalEnqueued: () => undefined,
  setWakeLive: () => undefined,
};

describe('a wake stopped over a partition (the server gone silent, the goodbye unanswered)', () => {
  const db = pgJobsSpec();

  it('settles within WAKE_END_MS of its clock and lets the LISTEN socket go', async () => {
    const hop = await partitionHop(Number(new URL(db.url).port));
    const clients: Client[] = [];
    let wake: QueueWake | undefined;
    try {
      const url = new URL(db.url);
      url.port = String(hop.port);
      const clock = frozenClock();
      wake = startQueueWake({
        listener: () => {
          const client = new Client({ connectionString: url.toString() });
          clients.push(client);
          return client;
        },
        executor: db.executor,
        target,
        clock,
      });
      expect(await wake.ready()).toBe(true);
      hop.cut();
      let settled = false;
      const stopping = wake.stop().then(() => void (settled = true));
      await clock.advance(WAKE_END_MS - 1);
      expect(settled).toBe(false); // the goodbye is waited for until the bound
      await clock.advance(1);
      expect(await settledWithin(stopping, 3_000)).toBeUndefined(); // not 'hung'
      expect(clients).toHaveLength(1);
      await until(() => socketOf(clients[0] as Client).destroyed);
    } finally {
      for (const client of clients) socketOf(client).destroy();
      await hop.stop();
    }
  });
});

describe('a wake stopped twice at once', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('startQueueWake: the second stop answers only once the first is done', async () => {
    const wake = startQueueWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      target,
    });
    expect(await wake.ready()).toBe(true);
    let firstDone = false;
    const first = wake.stop().then(() => void (firstDone = true));
    await wake.stop();
    expect(firstDone).toBe(true);
    await first;
  });

  it('startWorkerWake: the second stop neither answers early nor ends the session under the first leave', async () => {
    const registry = new JobRegistry();
    registry.register(
      job({
        name: 'pg.stop-twice',
        queue: 'stop-twice',
        input: t.object({}),
        idempotencyKey: () => 'once',
        tenant: 'none',
        run: () => undefined,
      }),
    );
    const worker = jobWorker({
      driver: postgresJobDriver({ executor: db.executor }),
      registry,
      concurrency: 2,
    });
    const logger = recordingLogger();
    const wake = startWorkerWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      target: worker,
      logger,
    });
    try {
      expect(await wake.ready()).toBe(true);
      await worker.start();
      await until(
        async () => (await db.pool.query('select 1 from x_job_hand_offs')).rowCount === 1,
      );
      let firstDone = false;
      const first = wake.stop().then(() => void (firstDone = true));
      await wake.stop();
      const firstDoneThen = firstDone;
      await first;
      // the first leave removed the registration and heard its flush marker on a session still open
      expect(logger.named('jobs.hand-off.leave-failed')).toEqual([]);
      expect((await db.pool.query('select 1 from x_job_hand_offs')).rowCount).toBe(0);
      expect(firstDoneThen).toBe(true);
    } finally {
      await wake.stop();
      await worker.stop();
    }
  });
});
