import { RESCUE_PAGE, RescueCursors } from './redis-rescue-cursors';

describe('RescueCursors', () => {
  it('starts at 0, moves past what a full page left in place, and back to 0 after a page that was not full', () => {
    const cursors = new RescueCursors();
    expect(cursors.offset('q', ['a'])).toBe(0);
    cursors.advance('q', ['a'], RESCUE_PAGE, 1_000);
    expect(cursors.offset('q', ['a'])).toBe(1_000);
    // a full page of which 300 were rescued: the rows behind them moved up, 700 more stay ahead
    cursors.advance('q', ['a'], RESCUE_PAGE, 700);
    expect(cursors.offset('q', ['a'])).toBe(1_700);
    cursors.advance('q', ['a'], RESCUE_PAGE - 1, RESCUE_PAGE - 1);
    expect(cursors.offset('q', ['a'])).toBe(0);
  });

  it('keeps one offset per queue and set of served names, whatever their order', () => {
    const cursors = new RescueCursors();
    cursors.advance('q', ['b', 'a'], RESCUE_PAGE, 10);
    expect(cursors.offset('q', ['a', 'b'])).toBe(10);
    expect(cursors.offset('q', ['a'])).toBe(0);
    expect(cursors.offset('q', undefined)).toBe(0);
    expect(cursors.offset('other', ['a', 'b'])).toBe(0);
    cursors.advance('q', undefined, RESCUE_PAGE, 3);
    expect(cursors.offset('q', undefined)).toBe(3);
    expect(cursors.offset('q', ['a', 'b'])).toBe(10);
  });
});
