import {
  HAND_OFF_ABSENT_RETRY_MS,
  HAND_OFF_RETRY_MS,
  HandOffMemo,
} from './pg-enqueue-hand-off-memo';

describe('HandOffMemo: which queues try the hand-off', () => {
  let now = 0;
  const memo = (): HandOffMemo => new HandOffMemo(() => now);
  beforeEach(() => {
    now = 1_000;
  });

  it('tries every queue until one misses, that queue again once the retry wait passed', () => {
    const m = memo();
    expect(m.tries('a')).toBe(true);
    m.learn('a', false);
    expect(m.tries('a')).toBe(false);
    expect(m.tries('b')).toBe(true);
    now += HAND_OFF_RETRY_MS - 1;
    expect(m.tries('a')).toBe(false);
    now += 1;
    expect(m.tries('a')).toBe(true);
  });

  it('a hand-off that found a worker registered clears the miss at once', () => {
    const m = memo();
    m.learn('a', false);
    m.learn('a', true);
    expect(m.tries('a')).toBe(true);
  });

  it('a schema without the table stops every queue for the longer wait', () => {
    const m = memo();
    m.absent();
    expect(m.tries('a')).toBe(false);
    now += HAND_OFF_ABSENT_RETRY_MS - 1;
    expect(m.tries('b')).toBe(false);
    now += 1;
    expect(m.tries('b')).toBe(true);
  });
});
