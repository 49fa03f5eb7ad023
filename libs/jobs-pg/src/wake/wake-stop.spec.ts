import { connect, createServer, type Server, type Socket } from 'node:net';
import { Client } from 'pg';
import { job, JobRegistry, jobWorker, recordingLogger, t } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../../test/until';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresJobDriver } from '../driver/pg-driver';
import { startQueueWake, type QueueWake } from './queue-wake';
import { WAKE_END_MS } from './queue-wake-config';
import { startWorkerWake } from './worker-wake';

/**
 * A TCP hop on 127.0.0.1 in front of the real server that forwards both ways until `cut()`, and from then on swallows
 * everything — bytes and the client's FIN alike (half-open sockets: nothing answers the goodbye): a network partition,
 * where a graceful `end()` waits for a close that never comes.
 */
interface PartitionHop {
  readonly port: number;
  cut(): void;
  stop(): Promise<void>;
}

async function partitionHop(upstreamPort: number): Promise<PartitionHop> {
  const sockets: Socket[] = [];
  let cut = false;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ port: upstreamPort, host: '127.0.0.1', allowHalfOpen: true });
    sockets.push(client, upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => void (cut || upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => void (cut || client.write(chunk)));
    client.on('end', () => void (cut || upstream.end()));
    upstream.on('end', () => void (cut || client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut: () => void (cut = true),
    async stop() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What `pending` settled with within `ms` of real time, or `'hung'`. */
async function settledWithin(pending: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([
      pending.then(
        () => 'settled',
        (error: unknown) => error,
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

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
      expect(await settledWithin(stopping, 3_000)).toBe('settled');
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
