import { frozenClock } from '../testing/frozen-clock';
import { memoryOutboxStore } from './memory-outbox-store';
import { outboxRequest, outboxStoreConformance } from './testing/outbox-store.conformance';

outboxStoreConformance('memory', async (clock) => {
  const store = memoryOutboxStore({ clock });
  return {
    store,
    async begin() {
      const tx = store.begin();
      return {
        tx,
        commit: async () => tx.commit(),
        rollback: async () => tx.rollback(),
      };
    },
  };
});

describe('memoryOutboxStore', () => {
  it('refuses a finished transaction and a second stage of one id', async () => {
    const store = memoryOutboxStore();
    const tx = store.begin();
    tx.commit();
    const request = outboxRequest();
    await expect(store.stage(request, tx)).rejects.toMatchObject({ code: 'X_INVARIANT' });
    await store.stage(request);
    await expect(store.stage(request)).rejects.toMatchObject({ code: 'X_INVARIANT' });
    expect(() => tx.rollback()).toThrow(/already committed/);
  });

  it('backlog(): the oldest row age on the store clock', async () => {
    const clock = frozenClock();
    const store = memoryOutboxStore({ clock });
    const stagedAt = clock.now();
    await store.stage(outboxRequest());
    await clock.advance(90_000);
    await store.stage(outboxRequest());
    expect(await store.backlog()).toEqual({
      count: 2,
      oldestStagedAt: stagedAt,
      oldestAgeMs: 90_000,
    });
  });
});
