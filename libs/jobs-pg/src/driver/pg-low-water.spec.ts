import { LOW_WATER_REFRESH_MS, PgLowWater } from './pg-low-water';

/**
 * `PgLowWater` on its own (no database): two claims of a queue may answer out of the order they were sent in, and the
 * one sent last is the one that saw the most — an answer older than the one kept neither replaces its bound nor
 * shortens the time the bound is good for.
 */
describe('PgLowWater: answers arriving out of order', () => {
  it('keeps the bound of the claim sent last when a claim sent before it answers after it', () => {
    const water = new PgLowWater();
    water.learn('q', 5_000, 2_000);
    water.learn('q', 9_000, 1_000);
    expect(water.bound('q')).toBe(5_000);
    expect(water.hint('q', 2_000 + LOW_WATER_REFRESH_MS - 1)).toBe(5_000);
    expect(water.hint('q', 2_000 + LOW_WATER_REFRESH_MS)).toBeNull();
  });
});
