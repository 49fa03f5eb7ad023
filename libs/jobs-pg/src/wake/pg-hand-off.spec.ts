import type { JobDriver, NackOptions } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { echoingExecutor, fakeTarget, handedPayload as handed } from '../../test/hand-off-fakes';
import type { PgExecutor } from '../executor/pg-executor';
import { HAND_OFF_LEAVE_MS, pgHandOff } from './pg-hand-off';
import type { WakeSession } from './wake-session';

const SQL = { handOffRegister: 'register', handOffLeave: 'leave' };

/** A session whose statements are recorded; `stall` makes every later one never answer (the database out of reach). */
function fakeSession(): { session: WakeSession; sent: string[]; stall(): void } {
  const sent: string[] = [];
  let stalled = false;
  const session = {
    query(text: string) {
      sent.push(text);
      return stalled ? new Promise<unknown>(() => undefined) : Promise.resolve({ rows: [] });
    },
  } as unknown as WakeSession;
  return { session, sent, stall: () => (stalled = true) };
}

const executor: PgExecutor = { query: () => Promise.resolve({ rows: [], rowCount: 0 }) };
const driver: Pick<JobDriver, 'nack'> = { nack: () => Promise.resolve(true) };

describe('pgHandOff, its session faked', () => {
  it('registers once when the session opens and not again while nothing was handed', async () => {
    const { session, sent } = fakeSession();
    const target = fakeTarget();
    const side = pgHandOff({ target, executor, driver, sql: SQL, clock: frozenClock() });
    await side.own.opened(session);
    target.idle();
    target.idle();
    await Promise.resolve();
    expect(sent.filter((text) => text === 'register')).toHaveLength(1);
  });

  it("registers again once a handed row's free_left is half its registration or less, and the worker can take more", async () => {
    const { session, sent } = fakeSession();
    const target = fakeTarget();
    const side = pgHandOff({ target, executor, driver, sql: SQL, clock: frozenClock() });
    await side.own.opened(session);
    const writes = (): number => sent.filter((text) => text === 'register').length;
    side.own.heard(handed('00000000-0000-7000-8000-000000000001', 3));
    target.idle();
    await Promise.resolve();
    expect(writes()).toBe(1);
    side.own.heard(handed('00000000-0000-7000-8000-000000000002', 2));
    target.idle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes()).toBe(2);
    expect(target.taken.map((row) => row.id)).toEqual([
      '00000000-0000-7000-8000-000000000001',
      '00000000-0000-7000-8000-000000000002',
    ]);
  });

  it('bounds its leave when the database stops answering: the stop goes on after HAND_OFF_LEAVE_MS', async () => {
    const clock = frozenClock();
    const { session, sent, stall } = fakeSession();
    const side = pgHandOff({ target: fakeTarget(), executor, driver, sql: SQL, clock });
    await side.own.opened(session);
    stall();
    let left = false;
    const leaving = side.leave().then(() => (left = true));
    await clock.advance(HAND_OFF_LEAVE_MS - 1);
    expect(left).toBe(false);
    expect(sent).toContain('leave');
    await clock.advance(1);
    await leaving;
    expect(left).toBe(true);
  });
});

describe('pgHandOff leaving, its session faked', () => {
  it('hands back, unstarted, a row heard once its leave began, and its leave waits for that hand-back', async () => {
    const { session } = fakeSession();
    const target = fakeTarget();
    const backs: [string, NackOptions][] = [];
    let answer: () => void = () => undefined;
    const backing: Pick<JobDriver, 'nack'> = {
      nack(id, options) {
        backs.push([id, options]);
        return new Promise((resolve) => (answer = () => resolve(true)));
      },
    };
    // the flush marker the leave sends comes back on the session, as the server would echo it
    const echoing = echoingExecutor((payload) => side.own.heard(payload));
    const side = pgHandOff({
      target,
      executor: echoing,
      driver: backing,
      sql: SQL,
      clock: frozenClock(),
    });
    await side.own.opened(session);
    let left = false;
    const leaving = side.leave().then(() => (left = true));
    side.own.heard(handed('00000000-0000-7000-8000-000000000003', 3));
    expect(target.taken).toEqual([]);
    expect(backs).toEqual([
      [
        '00000000-0000-7000-8000-000000000003',
        {
          kind: 'handBack',
          workerId: 'w-1',
          claim: '11111111-1111-4111-8111-111111111111',
          error: null,
          runAt: 0,
        },
      ],
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(left).toBe(false);
    answer();
    await leaving;
    expect(left).toBe(true);
  });
});
