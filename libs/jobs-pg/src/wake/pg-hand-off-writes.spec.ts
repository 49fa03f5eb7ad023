import { recordingLogger, type JobDriver } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import {
  echoingExecutor,
  fakeTarget,
  handedPayload,
  heldSession,
  type SentStatement,
} from '../../test/hand-off-fakes';
import type { PgExecutor } from '../executor/pg-executor';
import { pgHandOff } from './pg-hand-off';

const SQL = { handOffRegister: 'register', handOffLeave: 'leave' };
const LOCK = 'select pg_advisory_lock($1::int, hashtext($2::text))';
const ID = '00000000-0000-7000-8000-000000000001';

const executor: PgExecutor = { query: () => Promise.resolve({ rows: [], rowCount: 0 }) };
const driver: Pick<JobDriver, 'nack'> = { nack: () => Promise.resolve(true) };

/** Lets promise chains and immediate callbacks run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** The statements of `sent` with `text`, in the order sent. */
const named = (sent: readonly SentStatement[], text: string): SentStatement[] =>
  sent.filter((s) => s.text === text);

/**
 * Opens `side` on `held`, answering its lock: its first write is then on the wire, unanswered. Answers the opening (in
 * an object: a promise returned bare would be awaited with it).
 */
async function lockAnswered(
  side: ReturnType<typeof pgHandOff>,
  held: ReturnType<typeof heldSession>,
): Promise<{ opening: Promise<unknown> }> {
  const opening = side.own.opened(held.session);
  await settle();
  named(held.sent, LOCK)[0]?.answer();
  await settle();
  return { opening };
}

/** A side over an executor that answers nothing, opened on a held session with its first write on the wire. */
async function writing(logger = recordingLogger()) {
  const held = heldSession();
  const target = fakeTarget();
  const side = pgHandOff({ target, executor, driver, sql: SQL, clock: frozenClock(), logger });
  const { opening } = await lockAnswered(side, held);
  return { side, sent: held.sent, target, opening, logger };
}

/**
 * Opens the side on a held session, answering its lock and its first write: the worker registered. Its leave's flush
 * marker comes back on the session, as the server would echo it, unless another executor is given.
 */
async function registered(
  options: { executor?: PgExecutor; driver?: Pick<JobDriver, 'nack'> } = {},
) {
  const held = heldSession();
  const { session, sent } = held;
  const target = fakeTarget();
  const clock = frozenClock();
  const logger = recordingLogger();
  const echoing = echoingExecutor((payload) => side.own.heard(payload));
  const side = pgHandOff({
    target,
    executor: options.executor ?? echoing,
    driver: options.driver ?? driver,
    sql: SQL,
    clock,
    logger,
  });
  const { opening } = await lockAnswered(side, held);
  named(sent, 'register')[0]?.answer();
  await opening;
  expect(sent.map((s) => s.text)).toEqual([LOCK, 'register']);
  return { side, session, sent, target, clock, logger };
}

describe("pgHandOff's registration writes, its session faked", () => {
  it('takes a handed free_left as the slots left: one of 4 left brings a write at the next idle', async () => {
    const { side, sent, target } = await registered();
    // one less than known would be 3 left of 4, not worth a write; free_left says 1
    side.own.heard(handedPayload(ID, 1));
    target.idle();
    await settle();
    expect(named(sent, 'register')).toHaveLength(2);
    expect(target.taken.map((row) => row.id)).toEqual([ID]);
  });

  it('counts a write before it is answered: a row handed meanwhile, leaving 1, brings the next write', async () => {
    const { side, sent, target, opening } = await writing();
    // the write committed, and a row was handed through it before its answer came back
    side.own.heard(handedPayload(ID, 1));
    named(sent, 'register')[0]?.answer();
    await opening;
    target.idle();
    await settle();
    expect(named(sent, 'register')).toHaveLength(2);
  });

  it('writes again at the next idle when a write failed: a failed write registered nothing', async () => {
    const { sent, target, opening, logger } = await writing();
    named(sent, 'register')[0]?.fail(
      Object.assign(new Error('deadlock detected'), { code: '40P01' }),
    );
    await opening;
    expect(logger.named('jobs.hand-off.register-failed')).toHaveLength(1);
    target.idle();
    await settle();
    expect(named(sent, 'register')).toHaveLength(2);
  });

  it('writes one at a time: one asked for while another is in flight is sent once that one is answered', async () => {
    const { side, sent, target } = await registered();
    side.own.heard(handedPayload(ID, 2));
    target.idle();
    await settle();
    expect(named(sent, 'register')).toHaveLength(2);
    // the second write in flight: a row handed through the first leaves 1, and the worker goes idle again
    side.own.heard(handedPayload('00000000-0000-7000-8000-000000000002', 1));
    target.idle();
    await settle();
    expect(named(sent, 'register')).toHaveLength(2);
    named(sent, 'register')[1]?.answer();
    await settle();
    expect(named(sent, 'register')).toHaveLength(3);
  });

  it('writes nothing on a session once it was lost', async () => {
    const { side, sent, target } = await registered();
    side.own.lost();
    target.idle();
    await settle();
    expect(sent.map((s) => s.text)).toEqual([LOCK, 'register']);
  });

  it('registers again on a session opened anew, though no loss was told', async () => {
    const { side } = await registered();
    const next = heldSession();
    const { opening } = await lockAnswered(side, next);
    named(next.sent, 'register')[0]?.answer();
    await opening;
    expect(next.sent.map((s) => s.text)).toEqual([LOCK, 'register']);
  });
  it('writes nothing more on a session whose schema has no x_job_hand_offs, and tries again on the next', async () => {
    const { side, sent, target, opening } = await writing();
    const absent = Object.assign(new Error('relation "x_job_hand_offs" does not exist'), {
      code: '42P01',
    });
    named(sent, 'register')[0]?.fail(absent);
    await opening;
    target.idle();
    await settle();
    expect(named(sent, 'register')).toHaveLength(1);
    // the session re-dialled after the migration ran
    side.own.lost();
    const next = heldSession();
    const reopening = side.own.opened(next.session);
    await settle();
    named(next.sent, LOCK)[0]?.answer();
    await settle();
    named(next.sent, 'register')[0]?.answer();
    await reopening;
    expect(next.sent.map((s) => s.text)).toEqual([LOCK, 'register']);
  });
});

describe("pgHandOff's leave, its session faked", () => {
  it('sends no write asked for during the one in flight once its leave began', async () => {
    const { side, sent, target } = await registered();
    side.own.heard(handedPayload(ID, 2));
    target.idle();
    await settle();
    side.own.heard(handedPayload('00000000-0000-7000-8000-000000000002', 1));
    target.idle();
    const leaving = side.leave();
    named(sent, 'register')[1]?.answer();
    await settle();
    expect(sent.map((s) => s.text)).toEqual([LOCK, 'register', 'register', 'leave']);
    named(sent, 'leave')[0]?.answer();
    await leaving;
  });

  it('stops hearing the worker go idle, and answers every call with its one run', async () => {
    const { side, sent, target, clock } = await registered();
    expect(target.listeners()).toBe(1);
    const first = side.leave();
    expect(target.listeners()).toBe(0);
    const second = side.leave();
    await settle();
    named(sent, 'leave')[0]?.answer();
    await clock.flush();
    await Promise.all([first, second]);
    expect(named(sent, 'leave')).toHaveLength(1);
  });

  it('answers at once when its flush marker cannot be sent, leaving no timer armed', async () => {
    const refusing: PgExecutor = { query: () => Promise.reject(new Error('pool closed')) };
    const { side, sent, clock } = await registered({ executor: refusing });
    let left = false;
    const leaving = side.leave().then(() => (left = true));
    await settle();
    named(sent, 'leave')[0]?.answer();
    await clock.flush();
    expect(left).toBe(true);
    await leaving;
    expect(clock.pending()).toBe(0);
  });

  it('waits for its flush marker after the removal: a row handed before it is handed back, not dropped', async () => {
    const markers: string[] = [];
    const marking: PgExecutor = {
      query: (_text, values) => {
        markers.push(String(values[1]));
        return Promise.resolve({ rows: [], rowCount: 1 });
      },
    };
    const backs: string[] = [];
    const backing: Pick<JobDriver, 'nack'> = {
      nack: (id) => (backs.push(id), Promise.resolve(true)),
    };
    const { side, sent, clock } = await registered({ executor: marking, driver: backing });
    let left = false;
    const leaving = side.leave().then(() => (left = true));
    await settle();
    named(sent, 'leave')[0]?.answer();
    await clock.flush();
    expect(markers).toHaveLength(1);
    expect(left).toBe(false);
    side.own.heard(handedPayload(ID, 3));
    side.own.heard(markers[0] ?? '');
    await leaving;
    expect(backs).toEqual([ID]);
  });

  it('logs a hand-back that failed, and its leave still answers', async () => {
    const markers: string[] = [];
    const marking: PgExecutor = {
      query: (_text, values) => {
        markers.push(String(values[1]));
        return Promise.resolve({ rows: [], rowCount: 1 });
      },
    };
    const refused: Pick<JobDriver, 'nack'> = {
      nack: () => Promise.reject(new Error('connection refused')),
    };
    const { side, sent, logger } = await registered({ executor: marking, driver: refused });
    const leaving = side.leave();
    await settle();
    named(sent, 'leave')[0]?.answer();
    await settle();
    side.own.heard(handedPayload(ID, 3));
    side.own.heard(markers[0] ?? '');
    await leaving;
    expect(logger.named('jobs.hand-off.hand-back-failed')).toHaveLength(1);
  });

  it('takes the lock but registers nothing on a session that opens once its leave began', async () => {
    const side = pgHandOff({
      target: fakeTarget(),
      executor,
      driver,
      sql: SQL,
      clock: frozenClock(),
    });
    await side.leave();
    const { session, sent } = heldSession();
    const opening = side.own.opened(session);
    await settle();
    named(sent, LOCK)[0]?.answer();
    await opening;
    await settle();
    expect(sent.map((s) => s.text)).toEqual([LOCK]);
  });

  it('sends nothing and logs nothing when no session ever opened', async () => {
    const logger = recordingLogger();
    const clock = frozenClock();
    const side = pgHandOff({ target: fakeTarget(), executor, driver, sql: SQL, clock, logger });
    await side.leave();
    expect(logger.events).toEqual([]);
    expect(clock.pending()).toBe(0);
  });
});
