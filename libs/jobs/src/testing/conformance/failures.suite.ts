import { job } from '../../declare/job';
import type { JobRow } from '../../driver/job-row';
import { memoryEventBus } from '../../events/memory-event-bus';
import { executeJob } from '../../runtime/execute-job';
import { ERROR_TEXT_MAX_LENGTH } from '../../runtime/render-error';
import { t } from '../../schema';
import { formatLogJson, formatLogLine } from '../../util/log-format';
import { recordingLogger } from '../../util/logger';
import type { Harness } from './harness';

/** A value a body throws, and what its stored rendering must say so an operator can read it. */
export interface OddThrow {
  readonly name: string;
  readonly make: () => unknown;
  /** A fragment the stored `lastError` contains. */
  readonly says: RegExp;
}

/** Makes a Proxy that throws on every access (a revoked one). */
function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/**
 * Values of every shape a body can throw. Each used to break the failure path on some driver (a `String()` or a
 * `.message.startsWith` that threw), leaving the row running until its lease lapsed and the error unrecorded.
 */
export const ODD_THROWS: readonly OddThrow[] = [
  { name: 'Object.create(null)', make: () => Object.create(null), says: /thrown object/ },
  {
    name: 'an object whose toString throws',
    make: () => ({
      reason: 'declined',
      toString() {
        throw new Error('no toString for you');
      },
    }),
    says: /declined/,
  },
  {
    name: 'an Error whose message is not a string',
    make: () => Object.assign(new Error('x'), { message: 42 }),
    says: /42/,
  },
  {
    name: 'an Error whose .code getter throws',
    make: () =>
      Object.defineProperty(new Error('card declined'), 'code', {
        get() {
          throw new Error('trap');
        },
      }),
    says: /card declined/,
  },
  { name: 'a Symbol', make: () => Symbol('odd'), says: /Symbol\(odd\)/ },
  { name: 'a BigInt', make: () => 12n, says: /12n/ },
  { name: 'a revoked Proxy', make: revokedProxy, says: /unreadable/ },
  { name: 'undefined', make: () => undefined, says: /undefined/ },
  { name: 'null', make: () => null, says: /null/ },
  { name: 'a huge string', make: () => 'x'.repeat(5_000_000), says: /truncated/ },
  {
    name: 'a string with NUL and a lone surrogate',
    make: () => 'bad\u0000text\ud800!',
    says: /bad.text.!/,
  },
];

// Declared once per module: `job()` refuses a second definition of one name.
const oddJob = job({
  name: 'conformance.odd-throw',
  input: t.object({}),
  idempotencyKey: () => 'odd',
  tenant: 'none',
  retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
});

/**
 * Whatever a body throws, the failure path cannot throw: the attempt settles (retried, then dead-lettered on the final
 * attempt, as the retry policy says), and the stored error is a bounded, readable rendering of the value.
 */
export function failuresSuite(h: Harness): void {
  describe('a body that throws a value of any shape', () => {
    const attempt = async (id: string, thrown: unknown) => {
      const [claimed] = await h.claim({ queue: oddJob.queue, limit: 1 });
      if (claimed?.id !== id) throw new Error(`conformance: expected to claim job ${id}`);
      const logger = recordingLogger();
      const execution = await executeJob({
        driver: h.driver(),
        job: {
          handle: oddJob,
          body: () => {
            throw thrown;
          },
        },
        claimed,
        clock: h.clock(),
        logger,
        events: memoryEventBus({ clock: h.clock() }),
      });
      const row = (await h.driver().get(id)) as JobRow;
      return { execution, row, logger };
    };

    it.each(ODD_THROWS.map((c) => [c.name, c] as const))(
      '%s: recorded, retried, then dead-lettered',
      async (_name, odd) => {
        const request = await h.enqueue({
          name: oddJob.name,
          queue: oddJob.queue,
          input: {},
          maxAttempts: 2,
        });
        const first = await attempt(request.id, odd.make());
        expect(first.execution.outcome).toBe('retried');
        expect(first.row.state).not.toBe('running');
        // the bound first: a failure then prints a length, not megabytes
        expect(first.row.lastError?.length).toBeLessThanOrEqual(ERROR_TEXT_MAX_LENGTH);
        expect(first.row.lastError).toMatch(odd.says);
        // the log line of the failure renders too, in both formats
        for (const { event, fields } of first.logger.events) {
          expect(() => formatLogLine(event, fields)).not.toThrow();
          expect(() => formatLogJson('error', event, fields, 0)).not.toThrow();
        }

        await h.clock().advance(1_000);
        const last = await attempt(request.id, odd.make());
        expect(last.execution.outcome).toBe('dead-lettered');
        expect(last.row.state).toBe('dead');
        expect(last.row.lastError?.length).toBeLessThanOrEqual(ERROR_TEXT_MAX_LENGTH);
        expect(last.row.lastError).toMatch(odd.says);
      },
    );
  });
}
