import { job } from '../../declare/job';
import { errorCodeOf } from '../../errors/jobs-error';
import { crossTenant } from '../../runtime/tenant';
import { t } from '../../schema';
import { runJobs, type JobsHarness } from '../../testing/run-jobs';
import type { EventBus } from '../event-bus';
import { publishEvent } from '../publish-event';

const A = '0190a0a0-0000-7000-8000-0000000000a1';
const B = '0190a0a0-0000-7000-8000-0000000000b2';
const POLL = 10_000;

/**
 * `step.waitForEvent` is scoped by tenant, end to end through `runJobs` on the bus `makeBus` answers: a tenant-A run
 * matches only events published under A; `publishEvent` inside a run defaults to the run's tenant, and publishing
 * for another tenant is `X_JOB_TENANT_MISMATCH` unless inside `crossTenant(reason, …)`, which is logged. Called by the
 * memory bus's spec and the Postgres bus's.
 */
export function tenantEventsScenario(name: string, makeBus: () => Promise<EventBus>): void {
  // one declaration set per call: a job name is declared once per module load
  const answers: { org: string; payload: unknown }[] = [];
  const published: Record<string, string> = {};
  const waiter = job({
    name: `tenant-events.${name}.wait`,
    input: t.object({ orgId: t.uuid }),
    idempotencyKey: ({ orgId }) => `wait:${orgId}`,
    tenant: ({ orgId }) => orgId,
    eventPoll: '10s',
    retry: { attempts: 1 },
    async run({ input, step }) {
      answers.push({ org: input.orgId, payload: await step.waitForEvent('paid', 'invoice.paid') });
    },
  });
  const publisher = job({
    name: `tenant-events.${name}.publish`,
    input: t.object({ orgId: t.uuid }),
    idempotencyKey: ({ orgId }) => `publish:${orgId}`,
    tenant: ({ orgId }) => orgId,
    retry: { attempts: 1 },
    async run() {
      const tryPublish = async (label: string, fn: () => Promise<unknown>): Promise<void> => {
        try {
          await fn();
          published[label] = 'published';
        } catch (error) {
          published[label] = errorCodeOf(error) ?? 'uncoded';
        }
      };
      await tryPublish('to-b', () =>
        publishEvent('invoice.paid', { from: 'a-run' }, { tenant: B }),
      );
      await tryPublish('own', () => publishEvent('invoice.paid', { from: 'a-run, own' }));
      await tryPublish('crossed', () =>
        crossTenant('settlement notice', () =>
          publishEvent('invoice.paid', { from: 'a-run, crossed' }, { tenant: B }),
        ),
      );
    },
  });

  describe(`step.waitForEvent is scoped by tenant: ${name}`, () => {
    let h: JobsHarness;
    let bus: EventBus;
    /**
     * Lets the worker's work due now run until `check` holds: a bus over a database answers on real I/O, which the
     * frozen clock's settle does not wait for (at most 5 s of real time).
     */
    const until = async (check: () => boolean | Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        await h.settle();
        if (await check()) return;
        if (Date.now() > deadline) throw new Error('tenant-events: condition never held');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    /** Waits until the row is parked again after `afterMs`: its wait looked and found nothing. */
    const parked = (id: string, afterMs: number) =>
      until(async () => {
        const row = await h.driver.get(id);
        return row?.state === 'suspended' && row.runAt > afterMs;
      });
    beforeEach(async () => {
      answers.length = 0;
      for (const key of Object.keys(published)) delete published[key];
      bus = await makeBus();
      await bus.reset();
      h = await runJobs({ jobs: [waiter, publisher], events: bus });
    });
    afterEach(async () => {
      await h.close();
    });

    it("a tenant-A wait ignores another tenant's event and an untenanted one, and takes A's", async () => {
      const { id } = await waiter.enqueue({ orgId: A });
      await parked(id, 0);
      await publishEvent('invoice.paid', { to: 'b' }, { tenant: B });
      await publishEvent('invoice.paid', { to: 'nobody' });
      await h.advance(POLL);
      await parked(id, h.clock.now());
      expect(answers).toEqual([]);
      await publishEvent('invoice.paid', { to: 'a' }, { tenant: A });
      await h.advance(POLL);
      await until(() => answers.length > 0);
      expect(answers).toEqual([{ org: A, payload: { to: 'a' } }]);
    });

    it("inside a run: publishEvent defaults to the run's tenant; another tenant needs crossTenant, logged", async () => {
      const a = await waiter.enqueue({ orgId: A });
      const b = await waiter.enqueue({ orgId: B });
      await parked(a.id, 0);
      await parked(b.id, 0);
      const { id } = await publisher.enqueue({ orgId: A });
      await until(async () => (await h.driver.get(id))?.state === 'done');
      expect(published).toEqual({
        'to-b': 'X_JOB_TENANT_MISMATCH',
        own: 'published',
        crossed: 'published',
      });
      await h.advance(POLL);
      await until(() => answers.length === 2);
      expect(answers.sort((x, y) => x.org.localeCompare(y.org))).toEqual([
        { org: A, payload: { from: 'a-run, own' } },
        { org: B, payload: { from: 'a-run, crossed' } },
      ]);
      expect(h.logger.named('jobs.tenant.crossed').map((e) => e.fields)).toEqual([
        expect.objectContaining({
          reason: 'settlement notice',
          from: A,
          to: B,
          event: 'invoice.paid',
        }),
      ]);
    });
  });
}
