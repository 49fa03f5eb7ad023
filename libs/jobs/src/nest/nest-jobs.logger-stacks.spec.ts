import type { LoggerService } from '@nestjs/common';
import { job } from '../declare/job';
import { memoryJobDriver } from '../driver/memory';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { enqueueRequest } from '../testing/enqueue-request';
import { frozenClock } from '../testing/frozen-clock';
import { recordingLogger, type JobsLogger } from '../util/logger';
import { jobWorker } from '../worker/job-worker';
import { nestJobsLogger } from './nest-jobs.logger';

const failing = job({
  name: 'stacks.failing',
  input: t.object({}),
  idempotencyKey: () => 'k',
  tenant: 'none',
  retry: { attempts: 2, delay: 1_000, jitter: false },
  run: () => {
    throw new Error('stacked');
  },
});

/** The lines a worker logs through `logger` while one job of `failing` fails twice (retried, then dead). */
async function failTwice(logger: JobsLogger): Promise<void> {
  const clock = frozenClock();
  const driver = memoryJobDriver({ clock });
  const registry = new JobRegistry();
  registry.register(failing);
  const worker = jobWorker({ driver, registry, clock, logger, workerId: 'w-stacks' });
  await driver.enqueue(
    enqueueRequest({ name: failing.name, queue: 'default', input: {}, runAt: clock.now() }),
  );
  await worker.start();
  await clock.advance(2_000);
  await worker.stop();
}

/** A Nest logger keeping each line it is handed. */
function lines(): { nest: LoggerService; got: string[] } {
  const got: string[] = [];
  const keep = (message: unknown): void => void got.push(String(message));
  return { nest: { log: keep, warn: keep, error: keep, debug: keep }, got };
}

describe('nestJobsLogger({ stacks: true }) on the library’s own failure lines', () => {
  it('prints the stack of a failed attempt (retried and dead) as errorStack, still one line', async () => {
    const { nest, got } = lines();
    await failTwice(nestJobsLogger({ logger: nest, stacks: true }));
    const failed = got.filter((l) => l.startsWith('jobs.attempt.failed '));
    expect(failed).toHaveLength(2);
    for (const line of failed) {
      expect(line).toContain(' error=stacked');
      expect(line).toMatch(/ errorStack="Error: stacked\\n {4}at /);
      expect(line.split('\n')).toHaveLength(1);
    }
  });

  it('prints it under errorStack in JSON too, and never without stacks', async () => {
    const json: string[] = [];
    await failTwice(nestJobsLogger({ format: 'json', stacks: true, write: (l) => json.push(l) }));
    const records = json.map((l) => JSON.parse(l) as Record<string, unknown>);
    const failed = records.filter((r) => r.event === 'jobs.attempt.failed');
    expect(failed.map((r) => r.error)).toEqual(['stacked', 'stacked']);
    for (const r of failed) expect(String(r.errorStack)).toMatch(/^Error: stacked\n {4}at /);

    const { nest, got } = lines();
    await failTwice(nestJobsLogger({ logger: nest }));
    expect(got.filter((l) => l.startsWith('jobs.attempt.failed '))).toHaveLength(2);
    expect(got.join('\n')).not.toContain('errorStack');
  });

  it('hands a logger reading the fields the same fields as before: the stack is no field', async () => {
    const logger = recordingLogger();
    await failTwice(logger);
    const fields = logger.named('jobs.attempt.failed').map((e) => e.fields);
    expect(fields).toHaveLength(2);
    for (const f of fields) {
      expect(f).toMatchObject({ error: 'stacked' });
      expect(Object.keys(f ?? {})).not.toContain('errorStack');
    }
  });
});
