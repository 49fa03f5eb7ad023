import { Client, type Notification } from 'pg';
import type { EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../../test/until';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { singleEnqueueParams } from '../driver/pg-enqueue-params';
import { toClaimedJob, type JobRecord } from '../driver/pg-rows';
import { SQL_ENQUEUE_HAND_OFF } from '../sql/enqueue-hand-off.sql';
import { SQL_HAND_OFF_LEAVE } from '../sql/hand-off-leave.sql';
import { SQL_HAND_OFF_REGISTER } from '../sql/hand-off-register.sql';
import { handOffChannel, HAND_OFF_LOCK_CLASS } from './pg-hand-off';

const VT = 30_000;

/** A worker's session as the hand-off holds it: its lock taken, its channel listened on, what it heard kept. */
interface Holder {
  readonly client: Client;
  readonly heard: string[];
  readonly pid: number;
  register(offers: readonly { queue: string; free: number; names: string[] }[]): Promise<void>;
}

/**
 * `SQL_ENQUEUE_HAND_OFF` against registrations written as a worker's session writes them, on a real PostgreSQL: which
 * row it hands and to whom, what the worker hears, and what it never hands.
 */
describe('the hand-off on PostgreSQL', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const clock = frozenClock(Date.UTC(2026, 5, 1));
  const holders: Client[] = [];
  afterEach(async () => {
    await Promise.all(holders.splice(0).map((c) => c.end().catch(() => undefined)));
  });

  const driver = (): ReturnType<typeof postgresJobDriver> =>
    postgresJobDriver({ executor: db.executor, clock });

  async function holder(workerId: string): Promise<Holder> {
    const client = new Client({ connectionString: db.url });
    client.on('error', () => undefined);
    holders.push(client);
    await client.connect();
    const heard: string[] = [];
    const channel = handOffChannel(workerId);
    client.on('notification', (n: Notification) => {
      if (n.channel === channel) heard.push(n.payload ?? '');
    });
    await client.query(`listen ${channel}`);
    await client.query('select pg_advisory_lock($1::int, hashtext($2::text))', [
      HAND_OFF_LOCK_CLASS,
      workerId,
    ]);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return {
      client,
      heard,
      pid: rows[0]!.pid,
      async register(offers) {
        await client.query(SQL_HAND_OFF_REGISTER, [workerId, JSON.stringify(offers), VT]);
      },
    };
  }

  const enqueue = async (overrides: Partial<EnqueueRequest> = {}): Promise<string> =>
    (await driver().enqueue(request({ runAt: clock.now(), ...overrides }))).id;
  const stored = async (id: string) => driver().get(id);
  const registrations = async (): Promise<{ worker_id: string; queue: string; free: number }[]> =>
    (
      await db.pool.query(
        'select worker_id, queue, free from x_job_hand_offs order by worker_id, queue',
      )
    ).rows;

  it('claims a row due now for the live registered worker and tells it alone, the row as a claim answers it', async () => {
    const a = await holder('worker-a');
    const other = await holder('worker-other');
    await a.register([{ queue: 'pg-q', free: 2, names: ['pg.job'] }]);
    const id = await enqueue();
    const row = await stored(id);
    expect(row).toMatchObject({
      state: 'running',
      attempt: 1,
      workerId: 'worker-a',
      leaseExpiresAt: clock.now() + VT,
    });
    await until(() => a.heard.length === 1);
    const told = toClaimedJob(JSON.parse(a.heard[0]!) as JobRecord);
    expect(told).toEqual(row);
    expect(other.heard).toEqual([]);
    expect(await registrations()).toEqual([{ worker_id: 'worker-a', queue: 'pg-q', free: 1 }]);
    // its last slot taken, the next row waits in the queue as any other
    await enqueue();
    const third = await enqueue();
    expect(await stored(third)).toMatchObject({ state: 'ready', attempt: 0, workerId: null });
    expect(await registrations()).toEqual([{ worker_id: 'worker-a', queue: 'pg-q', free: 0 }]);
  });

  it('never hands a row to a worker whose session is gone, and the next registration of its queue removes it', async () => {
    const dead = await holder('worker-dead');
    await dead.register([{ queue: 'pg-q', free: 5, names: ['pg.job'] }]);
    // the worker's process is killed: its session ends without a leave, its registration stays behind
    await db.pool.query('select pg_terminate_backend($1)', [dead.pid]);
    await until(async () => {
      const { rows } = await db.pool.query('select 1 from pg_stat_activity where pid = $1', [
        dead.pid,
      ]);
      return rows.length === 0;
    });
    const id = await enqueue();
    expect(await stored(id)).toMatchObject({ state: 'ready', attempt: 0, workerId: null });
    expect(await registrations()).toEqual([{ worker_id: 'worker-dead', queue: 'pg-q', free: 5 }]);
    const live = await holder('worker-live');
    await live.register([{ queue: 'pg-q', free: 1, names: ['pg.job'] }]);
    expect(await registrations()).toEqual([{ worker_id: 'worker-live', queue: 'pg-q', free: 1 }]);
  });

  it.each<[string, (h: Holder) => Promise<Partial<EnqueueRequest>>]>([
    ['a name it does not serve', async () => ({ name: 'pg.other' })],
    ['a queue it is not registered for', async () => ({ queue: 'pg-elsewhere' })],
    ['a row due later', async () => ({ runAt: clock.now() + 1 })],
    [
      'a due row of the same name and priority ahead of it',
      async () => {
        await driver().enqueueMany([request({ runAt: clock.now() - 1 })]);
        return {};
      },
    ],
    [
      'a paused queue',
      async () => {
        await db.pool.query("insert into x_queue_pauses (queue, paused_at) values ('pg-q', now())");
        return {};
      },
    ],
    ['an input past the notification bound', async () => ({ input: { text: 'x'.repeat(7_000) } })],
    [
      'an input and a key that could escape past the notification bound together',
      async () => ({ input: { text: 'x'.repeat(3_900) }, idempotencyKey: '"'.repeat(500) }),
    ],
  ])('hands nothing for %s: the row waits, announced as always', async (_, arrange) => {
    const h = await holder('worker-a');
    const woken: string[] = [];
    h.client.on('notification', (n: Notification) => {
      if (n.channel === 'x_jobs_wake') woken.push(n.payload ?? '');
    });
    await h.client.query('listen x_jobs_wake');
    await h.register([{ queue: 'pg-q', free: 3, names: ['pg.job'] }]);
    const overrides = await arrange(h);
    const id = await enqueue(overrides);
    const row = await stored(id);
    expect(row?.workerId).toBeNull();
    expect(row?.attempt).toBe(0);
    expect(['ready', 'delayed']).toContain(row?.state);
    expect(await registrations()).toEqual([{ worker_id: 'worker-a', queue: 'pg-q', free: 3 }]);
    await h.client.query('select 1'); // a round trip on the session: any notification sent has arrived
    expect(h.heard).toEqual([]);
    expect(woken).toContain(row?.queue);
  });

  it("hands no row due after the statement's clock: a sender whose clock runs ahead cannot start it early", async () => {
    const h = await holder('worker-a');
    await h.register([{ queue: 'pg-q', free: 3, names: ['pg.job'] }]);
    // sent as if the sender's clock said the row is due: the statement judges by its own clock ($1)
    const later = request({ runAt: clock.now() + 1 });
    const now = new Date(clock.now()).toISOString();
    const { rows } = await db.pool.query<{ handed: boolean }>(
      SQL_ENQUEUE_HAND_OFF,
      singleEnqueueParams(later, now),
    );
    expect(rows.map((r) => r.handed)).toEqual([false]);
    expect(await stored(later.id)).toMatchObject({ state: 'delayed', attempt: 0, workerId: null });
    expect(await registrations()).toEqual([{ worker_id: 'worker-a', queue: 'pg-q', free: 3 }]);
    await h.client.query('select 1'); // a round trip on the session: any notification sent has arrived
    expect(h.heard).toEqual([]);
  });

  it('a registration writes the queues offered with a free slot and keeps the others; a leave takes all', async () => {
    const h = await holder('worker-a');
    await h.register([
      { queue: 'q1', free: 2, names: ['a'] },
      { queue: 'q2', free: 3, names: ['b', 'c'] },
    ]);
    expect(await registrations()).toEqual([
      { worker_id: 'worker-a', queue: 'q1', free: 2 },
      { worker_id: 'worker-a', queue: 'q2', free: 3 },
    ]);
    await h.register([
      { queue: 'q2', free: 0, names: ['b'] },
      { queue: 'q3', free: 1, names: ['d'] },
      { queue: 'q1', free: 4, names: ['a'] },
    ]);
    expect(await registrations()).toEqual([
      { worker_id: 'worker-a', queue: 'q1', free: 4 },
      { worker_id: 'worker-a', queue: 'q2', free: 3 },
      { worker_id: 'worker-a', queue: 'q3', free: 1 },
    ]);
    await h.client.query(SQL_HAND_OFF_LEAVE, ['worker-a']);
    expect(await registrations()).toEqual([]);
  });

  it('two enqueues racing for the last slot: one is handed, the other waits; neither waits on the other', async () => {
    const h = await holder('worker-a');
    await h.register([{ queue: 'pg-q', free: 1, names: ['pg.job'] }]);
    const ids = await Promise.all(
      Array.from({ length: 16 }, () =>
        postgresJobDriver({ executor: db.executor, clock }).enqueue(
          request({ runAt: clock.now() }),
        ),
      ),
    );
    const rows = await Promise.all(ids.map((r) => stored(r.id)));
    expect(rows.filter((r) => r?.state === 'running')).toHaveLength(1);
    expect(rows.filter((r) => r?.state === 'ready')).toHaveLength(15);
    await until(() => h.heard.length === 1);
  });
});
