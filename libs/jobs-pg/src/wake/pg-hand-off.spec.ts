import type { ClaimedJob, JobDriver, WakeHandOff } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
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

function fakeTarget(): WakeHandOff & { taken: ClaimedJob[]; idle: () => void } {
  const listeners = new Set<() => void>();
  const taken: ClaimedJob[] = [];
  return {
    workerId: 'w-1',
    visibilityTimeoutMs: 30_000,
    offers: () => [{ queue: 'q', free: 4, names: ['n'] }],
    takeClaimed: (rows) => void taken.push(...rows),
    onIdle(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    taken,
    idle: () => listeners.forEach((l) => l()),
  };
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
