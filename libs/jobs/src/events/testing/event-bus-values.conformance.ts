import { errorCodeOf, JobsError } from '../../errors/jobs-error';
import {
  generatedValue,
  loadFastCheck,
  propertyRuns,
} from '../../testing/conformance/values-arbitraries';
import { nested } from '../../testing/conformance/values-support';
import {
  MAX_EVENT_NAME_LENGTH,
  MAX_EVENT_PAYLOAD_BYTES,
  MAX_JSON_DEPTH,
  MAX_TENANT_LENGTH,
} from '../../values/bounds';
import type { EventBus } from '../event-bus';
import { memoryEventBus } from '../memory-event-bus';
import type { EventBusUnderTest } from './event-bus-tenancy.conformance';
import { publishedAndReceived } from './event-wait-support';

/** A property over a database takes its time: 2,000 cases of a few statements each. */
const PROPERTY_TIMEOUT_MS = 300_000;

/** The field an `X_VALUE_INVALID` named, or the code of any other failure (`'resolved'`: no failure). */
async function refusedField(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'resolved';
  } catch (error) {
    if (error instanceof JobsError && error.code === 'X_VALUE_INVALID') {
      return String((error.meta as { field?: unknown }).field);
    }
    return errorCodeOf(error) ?? `uncoded: ${String(error).slice(0, 120)}`;
  }
}

/** A payload read back as a wait would get it, as exact text (key order, `__proto__` keys, every string). */
const text = (value: unknown): string | undefined => JSON.stringify(value);

/** A payload every rule allows that `jsonb` would alter: NUL, lone surrogates, an own `__proto__` key, key order. */
const EXACT = JSON.parse(
  '{"z":1,"a":{"__proto__":{"polluted":true},"b":"\\u0000","a":null},"s":"\\ud800-\\udfff-\\ud83d\\ude00","":[-0.5,1e21]}',
) as Record<string, unknown>;

/**
 * What every `EventBus` does with the value contract, as one suite each bus's own test calls (memory here, Postgres
 * beside its bus): an event name and tenant no bus stores exactly, a TTL out of range or a payload that is not JSON
 * (nested past 64 levels, over 1 MiB) are `X_VALUE_INVALID` naming the field, at the bus's door; any JSON payload is
 * received by a `step.waitForEvent` exactly as published, and the bus answers what the memory bus answers for every
 * generated payload (≥ 2,000 cases, `JOBS_PROPERTY_RUNS`; fast-check must be installed).
 */
export function eventBusValuesConformance(
  name: string,
  make: () => Promise<EventBusUnderTest>,
): void {
  loadFastCheck(); // X_PEER_MISSING at registration when fast-check is not installed
  describe(`EventBus value contract: ${name}`, () => {
    let under: EventBusUnderTest;
    let bus: EventBus;
    beforeEach(async () => {
      under = await make();
      bus = under.bus;
      await bus.reset();
    });
    afterEach(async () => {
      await under.close?.();
    });

    it('refuses an event name, a tenant or a TTL no bus stores exactly: X_VALUE_INVALID naming the field', async () => {
      const long = (n: number): string => 'x'.repeat(n + 1);
      const publish = (event: string, opts: object) => () =>
        bus.publish(event, { n: 1 }, opts as never);
      const names = ['', 'paid\u0000', 'paid\ud800', 'paid\udfff', long(MAX_EVENT_NAME_LENGTH)];
      for (const bad of names) expect(await refusedField(publish(bad, {}))).toBe('event.name');
      const tenants = ['', 'org\u0000', 'org\udbff', long(MAX_TENANT_LENGTH), 7];
      for (const bad of tenants) {
        expect(await refusedField(publish('paid', { tenant: bad }))).toBe('event.tenant');
      }
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 1.5, 1e15]) {
        expect(await refusedField(publish('paid', { ttlMs: bad }))).toBe('event.ttlMs');
      }
      // nothing refused was stored
      expect(await bus.find('paid', 0)).toBeUndefined();
      // the longest name and tenant are stored
      const edge = await bus.publish('e'.repeat(MAX_EVENT_NAME_LENGTH), 1, {
        tenant: 't'.repeat(MAX_TENANT_LENGTH),
      });
      expect(edge.tenant).toHaveLength(MAX_TENANT_LENGTH);
    });

    it('refuses a payload that is not JSON, nested past 64 levels or over 1 MiB: X_VALUE_INVALID event.payload', async () => {
      const over = 'x'.repeat(MAX_EVENT_PAYLOAD_BYTES - 1); // with its quotes, one byte over
      const bad: unknown[] = [
        [undefined],
        Number.NaN,
        10n,
        new Date(0),
        nested(MAX_JSON_DEPTH + 1),
        over,
      ];
      for (const payload of bad) {
        expect(await refusedField(() => bus.publish('paid', payload as never))).toBe(
          'event.payload',
        );
      }
      expect(await bus.find('paid', 0)).toBeUndefined();
      const deepest = await bus.publish('paid', nested(MAX_JSON_DEPTH) as never);
      expect(text(deepest.payload)).toBe(text(nested(MAX_JSON_DEPTH)));
      const largest = await bus.publish('paid', over.slice(1));
      expect(largest.payload).toHaveLength(MAX_EVENT_PAYLOAD_BYTES - 2);
    });

    it('a lookup by a name or tenant no bus stores is X_VALUE_INVALID, never a raw database error', async () => {
      expect(await refusedField(() => bus.find('paid\u0000', 0))).toBe('event.name');
      expect(await refusedField(() => bus.find('paid', 0, undefined, { tenant: 'a\ud800' }))).toBe(
        'event.tenant',
      );
      expect(await refusedField(() => bus.find('paid', Number.NaN))).toBe('event.sinceMs');
    });

    it('keeps a payload exactly: NUL, lone surrogates, own __proto__ keys and key order, as published', async () => {
      const since = await bus.now();
      const published = await bus.publish('exact', EXACT as never);
      const sent = text(EXACT);
      expect(text(published.payload)).toBe(sent);
      (EXACT['a'] as Record<string, unknown>)['b'] = 'changed after publishing';
      try {
        const found = await bus.find('exact', since);
        expect(text(found?.payload)).toBe(sent);
        expect(Object.getPrototypeOf(found?.payload)).toBe(Object.prototype);
        expect(Object.keys((found?.payload as Record<string, unknown>)['a'] as object)).toEqual([
          '__proto__',
          'b',
          'a',
        ]);
      } finally {
        (EXACT['a'] as Record<string, unknown>)['b'] = '\u0000';
      }
    });

    it('step.waitForEvent first receives exactly what was published, and a replay the same', async () => {
      expect(await publishedAndReceived(bus, 'exact.wait', EXACT)).toEqual({
        received: text(EXACT),
      });
      // an event name a bus cannot look up is refused before the wait is recorded
      expect(await publishedAndReceived(bus, 'bad\u0000', 1)).toEqual({
        first: { code: 'X_VALUE_INVALID' },
      });
    });

    it(
      'property: any JSON published is received by a wait exactly, or refused as the memory bus refuses it',
      async () => {
        const fc = loadFastCheck();
        let n = 0;
        await fc.assert(
          fc.asyncProperty(generatedValue(fc), async (g) => {
            const event = `prop.${++n}`;
            const tested = await publishedAndReceived(bus, event, g.value);
            const reference = await publishedAndReceived(memoryEventBus(), event, g.value);
            expect(tested).toEqual(reference);
            // and both answer what the contract says, read independently of the bus
            const refused = g.poisoned || g.depth > MAX_JSON_DEPTH;
            expect(tested).toEqual(
              refused
                ? { code: 'X_VALUE_INVALID', after: 'suspended' }
                : { received: text(g.value) },
            );
          }),
          { numRuns: propertyRuns() },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );
  });
}
