import type { LeaseHolder, LeaseStore } from '../lease-store';
import type { MemoryStore } from './memory-store';

/**
 * Fleet lease slots over the store. A slot whose `expiresAt` has come is free (the holder was SIGKILLed or stopped
 * renewing), with no cleanup call: expired slots are pruned whenever their key is read.
 */
export function memoryLeases(store: MemoryStore): LeaseStore {
  const live = (key: string): LeaseHolder[] => {
    const now = store.now();
    const slots = (store.leases.get(key) ?? []).filter((s) => s.expiresAt > now);
    if (slots.length === 0) store.leases.delete(key);
    else store.leases.set(key, slots);
    return slots;
  };

  const extend = (key: string, holder: string, ttlMs: number): boolean => {
    const slots = live(key);
    const i = slots.findIndex((s) => s.holder === holder);
    const own = slots[i];
    if (!own) return false;
    slots[i] = { ...own, expiresAt: store.now() + ttlMs };
    return true;
  };

  return {
    acquire(key, holder, limit, ttlMs) {
      if (extend(key, holder, ttlMs)) return Promise.resolve(true);
      const slots = live(key);
      const taken = new Set(slots.map((s) => s.slot));
      for (let slot = 0; slot < limit; slot++) {
        if (taken.has(slot)) continue;
        slots.push({ holder, slot, expiresAt: store.now() + ttlMs });
        store.leases.set(key, slots);
        return Promise.resolve(true);
      }
      return Promise.resolve(false);
    },
    renew(key, holder, ttlMs) {
      return Promise.resolve(extend(key, holder, ttlMs));
    },
    release(key, holder) {
      const slots = live(key).filter((s) => s.holder !== holder);
      if (slots.length === 0) store.leases.delete(key);
      else store.leases.set(key, slots);
      return Promise.resolve();
    },
    holders(key) {
      return Promise.resolve([...live(key)].sort((a, b) => a.slot - b.slot).map((s) => ({ ...s })));
    },
  };
}
