import { frozenClock } from '../testing/frozen-clock';
import { gate } from '../testing/test-kit';
import { recordingLogger } from '../util/logger';
import { drainWork, type DrainedRun } from './drain-work';

const T0 = Date.UTC(2026, 0, 1);

describe('drainWork', () => {
  const drained = (done: Promise<void>): DrainedRun & { stopped: boolean } => {
    const run = {
      done,
      stopped: false,
      beat: { stop: () => void (run.stopped = true) },
    };
    return run;
  };

  it('waits for a run that a claim on the wire started after the wait began', async () => {
    const clock = frozenClock(T0);
    const claim = gate();
    const body = gate();
    const passes = new Set<Promise<void>>();
    const runs = new Map<string, DrainedRun>();
    // the claim returns a row: it starts as a run, and the claim leaves the set
    const pass: Promise<void> = claim.promise.then(() => {
      const done = body.promise.then(() => void runs.delete('r1'));
      runs.set('r1', drained(done));
      passes.delete(pass);
    });
    passes.add(pass);
    let over = false;
    const logger = recordingLogger();
    void drainWork({ passes, handingBack: new Set(), runs }, T0 + 1_000, clock, logger, 'w1').then(
      () => (over = true),
    );
    claim.open();
    await clock.advance(10);
    expect(runs.size).toBe(1);
    expect(over).toBe(false);
    body.open();
    await clock.flush();
    expect(over).toBe(true);
    expect(logger.named('jobs.worker.drain-abandoned')).toEqual([]);
  });

  it('past the deadline, abandons the runs still going: logged, their leases no longer renewed', async () => {
    const clock = frozenClock(T0);
    const run = drained(gate().promise);
    const runs = new Map<string, DrainedRun>([['r1', run]]);
    const logger = recordingLogger();
    let over = false;
    void drainWork(
      { passes: new Set(), handingBack: new Set(), runs },
      T0 + 500,
      clock,
      logger,
      'w1',
    ).then(() => (over = true));
    await clock.advance(499);
    expect(over).toBe(false);
    await clock.advance(1);
    expect(over).toBe(true);
    expect(run.stopped).toBe(true);
    expect(logger.named('jobs.worker.drain-abandoned')[0]?.fields).toEqual({
      workerId: 'w1',
      jobIds: ['r1'],
    });
  });
});
