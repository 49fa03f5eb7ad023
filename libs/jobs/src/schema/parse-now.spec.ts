import { parseNow, parseWith, type StandardSchemaV1 } from './standard';
import { t } from './index';

/** A Standard Schema whose validate answers what `answer` gives. */
function schemaOf(answer: (value: unknown) => unknown): StandardSchemaV1<unknown, unknown> {
  return {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: answer as StandardSchemaV1<unknown, unknown>['~standard']['validate'],
    },
  };
}

describe('parseNow', () => {
  it("answers a synchronous validator's result as it is, no promise", () => {
    expect(parseNow(t.object({ n: t.number }), { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    const bad = parseNow(t.object({ n: t.number }), { n: 'x' });
    expect(bad).not.toBeInstanceOf(Promise);
    expect(bad).toMatchObject({ ok: false, issues: [{ path: 'n' }] });
  });

  it("answers a promise of an asynchronous validator's result", async () => {
    const later = parseNow(
      schemaOf(async (value) => ({ value })),
      7,
    );
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toEqual({ ok: true, value: 7 });
  });

  it("throws a validator's throw, where parseWith rejects with it", async () => {
    const boom = new Error('boom');
    const throwing = schemaOf(() => {
      throw boom;
    });
    expect(() => parseNow(throwing, 1)).toThrow(boom);
    await expect(parseWith(throwing, 1)).rejects.toBe(boom);
  });
});
