import { Client, Pool } from 'pg';
import { silentLogger, systemClock } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { queueWakeConfig, WAKE_PROBE_TIMEOUT_MS, WAKE_REDIAL_MS } from './queue-wake-config';
import type { OwnChannel, StartQueueWakeOptions } from './queue-wake-options';
import { WAKE_CHANNEL, WAKE_SWEEP_CHANNEL, WAKE_SWEEP_MS } from './wake-session';

/** The config reads its options and dials nothing: a pool and a client that never connect stand for the database. */
describe('queueWakeConfig (the options of startQueueWake, checked and defaulted)', () => {
  const pool = new Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
  const executor = pgPoolExecutor(pool);
  afterAll(async () => {
    await pool.end();
  });

  const heard: string[] = [];
  const target = {
    signalEnqueued: (queue: string, after: number) => void heard.push(`wake ${queue} ${after}`),
    signalSweep: (queue: string, after: number) => void heard.push(`sweep ${queue} ${after}`),
    setWakeLive: (live: boolean) => void heard.push(`live ${live}`),
  };
  const own = (channel: string): OwnChannel => ({
    channel,
    opened: () => Promise.resolve(),
    heard: () => undefined,
    lost: () => undefined,
  });
  const config = (options: Partial<StartQueueWakeOptions>) =>
    queueWakeConfig({ listener: () => new Client(), executor, ...options });

  beforeEach(() => heard.splice(0));

  it("defaults to the jobs' wake and sweep channels, and to the target's signals", () => {
    const c = config({ target });
    expect(c).toMatchObject({
      channel: WAKE_CHANNEL,
      sweepChannel: WAKE_SWEEP_CHANNEL,
      sweepAfterMs: WAKE_SWEEP_MS,
      probeTimeoutMs: WAKE_PROBE_TIMEOUT_MS,
      firstRedialMs: WAKE_REDIAL_MS,
      logger: silentLogger,
      clock: systemClock,
      own: undefined,
      executor,
    });
    c.onWake('mail', 1);
    c.onSweep('mail', 2);
    c.onLive(true);
    expect(heard).toEqual(['wake mail 1', 'sweep mail 2', 'live true']);
  });

  it('sweeps through onWake when onWake is given, or the target has no sweep of its own', () => {
    const woken: string[] = [];
    config({ target, onWake: (queue) => void woken.push(queue) }).onSweep('a', 1);
    config({ target: { ...target, signalSweep: undefined } }).onSweep('b', 1);
    expect(woken).toEqual(['a']);
    expect(heard).toEqual(['wake b 1']);
  });

  it('listens on no sweep channel beside another channel, unless one is given', () => {
    expect(config({ target, channel: 'relay_wake' }).sweepChannel).toBeUndefined();
    expect(
      config({ target, channel: 'relay_wake', sweepChannel: 'relay_sweep' }).sweepChannel,
    ).toBe('relay_sweep');
  });

  it('keeps what the options give', () => {
    const clock = frozenClock();
    const c = config({
      onWake: () => undefined,
      clock,
      probeTimeoutMs: 7,
      redialMs: 9,
      sweepAfterMs: 3,
    });
    expect(c).toMatchObject({ clock, probeTimeoutMs: 7, firstRedialMs: 9, sweepAfterMs: 3 });
    expect(() => c.onLive(true)).not.toThrow();
  });

  it('turns a client instance into a dialler that answers it first', async () => {
    const client = new Client();
    const c = queueWakeConfig({ listener: client, executor, target });
    expect(await c.dial()).toBe(client);
  });

  it('refuses a wake with nothing to wake, and any channel that is not a plain identifier', () => {
    const refused = (message: string) =>
      expect.objectContaining({
        code: 'X_INVARIANT',
        message: expect.stringMatching(`^${message}`),
      });
    expect(() => config({})).toThrow(refused('startQueueWake: pass onWake or target\\.'));
    expect(() => config({ target, channel: 'x; drop table y' })).toThrow(
      refused('startQueueWake: bad channel x; drop table y\\. Fix: '),
    );
    expect(() => config({ target, sweepChannel: 'Sweep' })).toThrow(
      refused('startQueueWake: bad channel Sweep\\. Fix: '),
    );
    expect(() => config({ target, own: own('o'.repeat(64)) })).toThrow(
      refused(`startQueueWake: bad channel ${'o'.repeat(64)}\\. Fix: `),
    );
    expect(config({ target, own: own('x_jobs_ho_0123456789abcdef') }).own?.channel).toBe(
      'x_jobs_ho_0123456789abcdef',
    );
  });
});
