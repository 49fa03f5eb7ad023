import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import type { JobRow } from '../driver/job-row';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import type { JobsLogger } from '../util/logger';
import { JobsModule } from './jobs.module';
import { WorkerHost } from './worker.host';
import { closeRecordingDriver } from '../../test/close-recording-driver';

/** Unwinds when the worker aborts it: the drain hands the run back. */
const politeJob = job({
  name: 'worker-host-spec.polite',
  input: t.object({}),
  idempotencyKey: () => 'polite',
  tenant: 'none',
  run: ({ signal }) =>
    new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason as Error)),
    ),
});

/** Ignores its signal: only the shutdown deadline ends the wait for it. */
const stubbornJob = job({
  name: 'worker-host-spec.stubborn',
  input: t.object({}),
  idempotencyKey: () => 'stubborn',
  tenant: 'none',
  run: () => new Promise<never>(() => undefined),
});

interface Booted {
  readonly app: TestingModule;
  readonly clock: FrozenClock;
  readonly driver: JobDriver;
  /** Log event names and `driver.close`, in the order they happened. */
  readonly order: string[];
}

async function boot(deadlineMs?: number): Promise<Booted> {
  const clock = frozenClock();
  const order: string[] = [];
  const logger: JobsLogger = { log: (_level, event) => void order.push(event) };
  const driver = closeRecordingDriver(clock, order);
  const app = await Test.createTestingModule({
    imports: [
      JobsModule.forRoot({
        driver,
        clock,
        logger,
        roles: ['worker'],
        ...(deadlineMs === undefined ? {} : { shutdown: { deadlineMs } }),
      }),
      JobsModule.forFeature({ jobs: [{ politeJob, stubbornJob }] }),
    ],
  }).compile();
  await app.init();
  return { app, clock, driver, order };
}

async function untilRunning(booted: Booted, id: string): Promise<void> {
  for (let turn = 0; turn < 50; turn++) {
    if ((await booted.driver.get(id))?.state === 'running') return;
    await booted.clock.advance(10);
  }
  throw new Error(`job ${id} never started`);
}

describe('WorkerHost', () => {
  it('drains on shutdown: aborts held runs with X_DRAINING, hands them back uncounted, closes the driver last', async () => {
    const booted = await boot();
    expect(booted.app.get(WorkerHost).worker).toBeDefined();
    const { id } = await politeJob.enqueue({});
    await untilRunning(booted, id);

    await booted.app.close('SIGTERM');

    const row = (await booted.driver.get(id)) as JobRow;
    expect(row.state).toBe('ready');
    expect(row.attempt).toBe(0);
    expect(row.lastError).toContain('X_DRAINING');
    const at = (event: string): number => booted.order.indexOf(event);
    expect(at('jobs.worker.draining')).toBeGreaterThan(-1);
    expect(at('jobs.worker.stopped')).toBeGreaterThan(at('jobs.worker.draining'));
    expect(at('driver.close')).toBeGreaterThan(at('jobs.worker.stopped'));
    expect(booted.app.get(WorkerHost).worker).toBeUndefined();
  });

  it('stops waiting for a run that ignores the drain at shutdown.deadlineMs', async () => {
    const booted = await boot(1_000);
    const { id } = await stubbornJob.enqueue({});
    await untilRunning(booted, id);

    const closing = booted.app.close('SIGTERM');
    await booted.clock.advance(1_000);
    await closing;

    expect(booted.order).toContain('jobs.worker.drain-abandoned');
    expect(booted.order.at(-1)).toBe('driver.close');
  });
});
