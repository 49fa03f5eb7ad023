import type { EventBus } from '../event-bus';

/** The bus under test over EMPTY storage. */
export interface EventBusUnderTest {
  /** The bus under test. */
  readonly bus: EventBus;
  /** Frees what `make` opened; called after each test. */
  close?(): Promise<void>;
}

const A = '0190a0a0-0000-7000-8000-0000000000a1';
const B = '0190a0a0-0000-7000-8000-0000000000b2';

/**
 * What every `EventBus` does with tenants, as one suite each bus's own test calls (memory here, Postgres beside its
 * bus): an event is stamped with the tenant it was published under (null: none), and a lookup that names a tenant
 * matches that tenant's events only — null matching only untenanted ones — while a lookup naming none matches all.
 */
export function eventBusTenancyConformance(
  name: string,
  make: () => Promise<EventBusUnderTest>,
): void {
  describe(`EventBus tenancy conformance: ${name}`, () => {
    let under: EventBusUnderTest;
    beforeEach(async () => {
      under = await make();
      await under.bus.reset();
    });
    afterEach(async () => {
      await under.close?.();
    });

    it('stamps each event with its tenant, null when published under none', async () => {
      const { bus } = under;
      expect((await bus.publish('paid', { n: 1 }, { tenant: A })).tenant).toBe(A);
      expect((await bus.publish('paid', { n: 2 })).tenant).toBeNull();
      expect((await bus.publish('paid', { n: 3 }, { tenant: null })).tenant).toBeNull();
    });

    it("a lookup naming a tenant matches that tenant's events only; naming none matches all", async () => {
      const { bus } = under;
      const since = await bus.now();
      await bus.publish('paid', { n: 1 }, { tenant: B });
      await bus.publish('paid', { n: 2 });
      await bus.publish('paid', { n: 3 }, { tenant: A });
      const payload = async (tenant?: string | null): Promise<unknown> =>
        (await bus.find('paid', since, undefined, tenant === undefined ? {} : { tenant }))?.payload;
      expect(await payload(A)).toEqual({ n: 3 });
      expect(await payload(B)).toEqual({ n: 1 });
      expect(await payload(null)).toEqual({ n: 2 });
      expect(await payload('0190a0a0-0000-7000-8000-0000000000c3')).toBeUndefined();
      expect(await payload()).toEqual({ n: 1 });
      // the match function sees only the tenant's own events
      const seen: unknown[] = [];
      await bus.find('paid', since, (p) => (seen.push(p), false), { tenant: A });
      expect(seen).toEqual([{ n: 3 }]);
    });
  });
}
