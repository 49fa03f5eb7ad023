import { hasNulOrLoneSurrogate, sanitised } from '../../testing/conformance/values-oracle';
import { uuidv7 } from '../../util/ids';
import { MAX_FREE_TEXT_LENGTH, TRUNCATION_MARKER } from '../../values/bounds';
import { ids, LEASE, type OutboxSuite } from './outbox-suite';

/**
 * The outbox conformance tests of quarantine, restore and the backlog: a row that cannot be published leaves the
 * claim and the backlog with the rows its transaction staged after it, bounded and listed, until restored.
 */
export function outboxQuarantineConformance(s: OutboxSuite): void {
  const { claim, stageAll, inTx } = s;

  it('quarantines a held row and the rows its transaction staged after it: out of the claim and the backlog, listed', async () => {
    const [r1, r2, r3] = await inTx(3);
    const [solo] = await stageAll(1);
    const held = ids(await claim('relay-a'));
    expect(held).toEqual([r1?.id, r2?.id, r3?.id, solo?.id]);
    expect(await s.store.markPublished([r1?.id ?? ''], 'relay-a')).toBe(1);
    await s.clock.advance(5);
    const out = await s.store.quarantine(r2?.id ?? '', 'relay-a', 'X_VALUE_INVALID: bad\u0000');
    expect([...out].sort()).toEqual([r2?.id, r3?.id].sort());
    expect(await s.store.release([r3?.id ?? '', solo?.id ?? ''], 'relay-a')).toBe(1);
    expect(await s.store.retained()).toBe(1);
    expect(ids(await claim('relay-b'))).toEqual([solo?.id]);
    await s.clock.advance(LEASE * 2);
    expect(ids(await claim('relay-c'))).toEqual([solo?.id]);
    const listed = await s.store.quarantined();
    expect(listed.map((q) => [q.id, q.code, q.attempts])).toEqual([
      [r2?.id, 'X_OUTBOX_QUARANTINED', 1],
      [r3?.id, 'X_OUTBOX_HELD_BEHIND', 0],
    ]);
    expect(listed[0]).toMatchObject({ request: r2, quarantinedAt: s.clock.now() - LEASE * 2 });
    expect(listed[0]?.error).toMatch(/^X_VALUE_INVALID: bad/);
    expect(listed[0]?.error).not.toMatch(/\u0000/);
    expect(listed[1]?.error).toContain(r2?.id);
  });

  it('quarantines only the rows its transaction staged AFTER the row, never an earlier one', async () => {
    const [r1, r2, r3] = await inTx(3);
    expect(ids(await claim('relay-a'))).toEqual([r1?.id, r2?.id, r3?.id]);
    // the row first, then the rows held behind it in staging order; r1, staged before it, stays relay-a's
    expect(await s.store.quarantine(r2?.id ?? '', 'relay-a', 'bad')).toEqual([r2?.id, r3?.id]);
    expect((await s.store.quarantined()).map((q) => q.id)).toEqual([r2?.id, r3?.id]);
    expect(await s.store.markPublished([r1?.id ?? ''], 'relay-a')).toBe(1);
  });

  it('lists the oldest quarantine first, whatever the staging order, at most limit rows', async () => {
    const [early, late] = await stageAll(2);
    await claim('relay-a');
    expect(await s.store.quarantine(late?.id ?? '', 'relay-a', 'out first')).toEqual([late?.id]);
    await s.clock.advance(1_000);
    expect(await s.store.quarantine(early?.id ?? '', 'relay-a', 'out later')).toEqual([early?.id]);
    expect((await s.store.quarantined()).map((q) => q.id)).toEqual([late?.id, early?.id]);
    expect((await s.store.quarantined(1)).map((q) => q.id)).toEqual([late?.id]);
  });

  it('bounds a stored error: 5 MB with NUL and lone surrogates is stored readable, cut to 8,192 with a marker', async () => {
    const huge = `X_BOOM: first \u0000 \ud800 ${'y\udc00'.repeat(2_621_440)}`;
    const [r1, r2] = await stageAll(2);
    await claim('relay-a');
    const failure = { id: r1?.id ?? '', error: huge };
    expect(await s.store.release([r1?.id ?? '', r2?.id ?? ''], 'relay-a', failure)).toBe(2);
    await claim('relay-a');
    expect(await s.store.quarantine(r1?.id ?? '', 'relay-a', huge)).toEqual([r1?.id]);
    const [listed] = await s.store.quarantined();
    const error = listed?.error ?? '';
    expect(listed?.attempts).toBe(2);
    expect(error.length).toBeLessThanOrEqual(MAX_FREE_TEXT_LENGTH);
    expect(hasNulOrLoneSurrogate(error)).toBe(false);
    // what is kept is the text as written, each NUL and lone surrogate U+FFFD, then the count of what was cut
    const kept = error.indexOf(TRUNCATION_MARKER);
    expect(kept).toBeGreaterThan(MAX_FREE_TEXT_LENGTH - 64);
    expect(error).toBe(
      `${sanitised(huge).slice(0, kept)}${TRUNCATION_MARKER}${huge.length - kept} chars]`,
    );
    expect(error.startsWith('X_BOOM: first \ufffd \ufffd y\ufffd')).toBe(true);
  });

  it('quarantine is fenced on the claimant, and a published or quarantined row is left alone', async () => {
    const [r1] = await stageAll(1);
    await claim('relay-a');
    expect(await s.store.quarantine(r1?.id ?? '', 'relay-b', 'boom')).toEqual([]);
    expect(await s.store.quarantined()).toEqual([]);
    expect(await s.store.quarantine(r1?.id ?? '', 'relay-a', 'boom')).toEqual([r1?.id]);
    expect(await s.store.quarantine(r1?.id ?? '', 'relay-a', 'boom')).toEqual([]);
    expect(await s.store.quarantine(uuidv7(), 'relay-a', 'boom')).toEqual([]);
    expect((await s.store.quarantined()).map((q) => q.id)).toEqual([r1?.id]);
  });

  it('restores quarantined rows: claimable again, in staging order, attempts reset', async () => {
    const [r1, r2] = await inTx(2);
    await claim('relay-a');
    await s.store.release([r1?.id ?? '', r2?.id ?? ''], 'relay-a', {
      id: r1?.id ?? '',
      error: 'x',
    });
    await claim('relay-a');
    await s.store.quarantine(r1?.id ?? '', 'relay-a', 'still bad');
    expect(await s.store.restore([r2?.id ?? ''])).toBe(1);
    // r2 waits behind r1, which is still quarantined: a transaction is never published out of order
    expect(await claim('relay-b')).toEqual([]);
    expect(await s.store.restore([r1?.id ?? '', uuidv7()])).toBe(1);
    expect(await s.store.quarantined()).toEqual([]);
    expect(await s.store.retained()).toBe(2);
    const back = await claim('relay-b');
    expect(back.map((r) => [r.id, r.attempts])).toEqual([
      [r1?.id, 0],
      [r2?.id, 0],
    ]);
  });

  it('restores no row that is not quarantined: a waiting or held row keeps its attempts and its claimant', async () => {
    const [r1] = await stageAll(1);
    await claim('relay-a');
    await s.store.release([r1?.id ?? ''], 'relay-a', { id: r1?.id ?? '', error: 'x' });
    expect(await s.store.restore([r1?.id ?? ''])).toBe(0);
    const [back] = await claim('relay-b');
    expect(back?.attempts).toBe(1);
    expect(await s.store.restore([r1?.id ?? ''])).toBe(0);
    expect(await s.store.markPublished([r1?.id ?? ''], 'relay-b')).toBe(1);
  });

  it('backlog(): the rows retained() counts and the oldest of them, in one read', async () => {
    expect(await s.store.backlog()).toEqual({ count: 0, oldestStagedAt: null, oldestAgeMs: 0 });
    const open = await s.under.begin();
    await stageAll(1, open.tx);
    const [r1, r2, r3] = await inTx(3);
    // a row of an open transaction is nobody's backlog yet
    expect((await s.store.backlog()).count).toBe(3);
    await open.rollback();
    const held = await claim('relay-a', 1);
    expect(ids(held)).toEqual([r1?.id]);
    // a claimed row still waits; its staging time is the oldest
    const first = await s.store.backlog();
    expect(first).toMatchObject({ count: 3, oldestStagedAt: held[0]?.stagedAt });
    expect(first.oldestAgeMs).toBeGreaterThanOrEqual(0);
    await s.clock.advance(5_000);
    expect((await s.store.backlog()).oldestAgeMs).toBeGreaterThanOrEqual(first.oldestAgeMs);
    expect(await s.store.markPublished([r1?.id ?? ''], 'relay-a')).toBe(1);
    const [next] = await claim('relay-a', 1);
    expect(next?.id).toBe(r2?.id);
    const after = await s.store.backlog();
    expect(after).toMatchObject({ count: 2, oldestStagedAt: next?.stagedAt });
    expect(after.oldestStagedAt).toBeGreaterThanOrEqual(first.oldestStagedAt ?? Infinity);
    // a quarantined row (and the rows its transaction staged after it) leave the backlog
    await s.store.quarantine(r2?.id ?? '', 'relay-a', 'bad');
    expect(await s.store.backlog()).toEqual({ count: 0, oldestStagedAt: null, oldestAgeMs: 0 });
    expect((await s.store.quarantined()).map((q) => q.id)).toEqual([r2?.id, r3?.id]);
  });
}
