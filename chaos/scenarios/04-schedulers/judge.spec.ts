import { judgeTask, type ObservedFire } from './judge';

const MIN = 60_000;
/** Every minute from 1 to 20 (minutes as ms), armed at 0. */
const expected = Array.from({ length: 20 }, (_, i) => (i + 1) * MIN);
const fire = (occurrence: number, plannedAt = occurrence): ObservedFire => ({
  occurrenceMs: occurrence * MIN,
  plannedAtMs: plannedAt * MIN,
});
const judge = (policy: 'skip' | 'run-once' | 'run-all', fires: ObservedFire[]) =>
  judgeTask({ policy, armedAtMs: 0, expected, fires, judgeEndMs: 10 * MIN });

/** The judge of scenario 4 on hand-made histories: an outage from minute 3 to minute 7 under each policy. */
describe('scenario 4 judge', () => {
  const onTime = (from: number, to: number): ObservedFire[] =>
    Array.from({ length: to - from + 1 }, (_, i) => fire(from + i));

  it('lets skip pass the missed minutes when it fired the latest one due', () => {
    const v = judge('skip', [...onTime(1, 2), fire(7, 7.5), ...onTime(8, 12)]);
    expect(v).toMatchObject({
      skippedByPolicy: 4,
      skippedBeyondPolicy: 0,
      doubles: 0,
      unexpected: 0,
    });
  });

  it('refuses a skip that fired an earlier minute than the latest due', () => {
    const v = judge('skip', [...onTime(1, 2), fire(3, 7.5), ...onTime(8, 12)]);
    expect(v.skippedBeyondPolicy).toBe(4);
  });

  it('lets run-once pass the minutes due when it fired the earliest', () => {
    const v = judge('run-once', [...onTime(1, 2), fire(3, 7.5), ...onTime(8, 12)]);
    expect(v).toMatchObject({ skippedByPolicy: 4, skippedBeyondPolicy: 0 });
  });

  it('refuses a run-once that fired the latest (skip) instead', () => {
    const v = judge('run-once', [...onTime(1, 2), fire(7, 7.5), ...onTime(8, 12)]);
    expect(v.skippedBeyondPolicy).toBe(4);
  });

  it('lets run-all pass nothing, and counts doubles, strays and a silent end', () => {
    expect(judge('run-all', [...onTime(1, 2), ...onTime(7, 12)]).skippedBeyondPolicy).toBe(4);
    const v = judge('run-all', [...onTime(1, 8), fire(4, 9), fire(0.5)]);
    expect(v).toMatchObject({ doubles: 1, unexpected: 1, skippedBeyondPolicy: 2, fired: 8 });
  });
});
