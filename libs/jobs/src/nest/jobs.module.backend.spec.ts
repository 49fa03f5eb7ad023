import { Test, type TestingModule } from '@nestjs/testing';
import { driverBackend } from '../driver/backend';
import { memoryBackend, memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { recordingLogger } from '../util/logger';
import { JobsModule } from './jobs.module';
import type { JobsModuleOptions } from './jobs.options';
import { JobsRuntime } from './jobs.runtime';
import { JobsService } from './jobs.service';
import { rejectionCode } from '../../test/outcomes';

const open: TestingModule[] = [];

afterEach(async () => {
  for (const app of open.splice(0).reverse()) await app.close();
});

async function boot(options: Partial<JobsModuleOptions>): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [
      JobsModule.forRoot({
        logger: recordingLogger(),
        roles: ['web'],
        retention: false,
        ...options,
      }),
    ],
  }).compile();
  open.push(app);
  await app.init();
  return app;
}

describe('JobsModule.forRoot({ backend })', () => {
  it('runs on the backend object given: its driver, its event bus, closed after the driver at shutdown', async () => {
    const clock = frozenClock();
    const backend = memoryBackend({ clock });
    const closed: string[] = [];
    const driverClose = backend.driver.close.bind(backend.driver);
    const watched = {
      ...backend,
      driver: { ...backend.driver, close: () => (closed.push('driver'), driverClose()) },
      close: () => (closed.push('backend'), backend.close()),
    };
    const app = await boot({ backend: watched, clock });
    const runtime = app.get(JobsRuntime);
    expect(runtime.config.backend).toBe(watched);
    expect(runtime.config.driver).toBe(watched.driver);
    expect(runtime.config.events).toBe(backend.events);
    const event = await app.get(JobsService).publishEvent('backend.given', { n: 1 });
    expect(event).toMatchObject({ name: 'backend.given', publishedAt: clock.now() });
    await app.close();
    open.splice(open.indexOf(app), 1);
    expect(closed).toEqual(['driver', 'backend']);
  });

  it('closes the backend once, after the driver, even when the driver fails to close', async () => {
    const clock = frozenClock();
    const backend = memoryBackend({ clock });
    const closed: string[] = [];
    const failing = {
      ...backend,
      driver: {
        ...backend.driver,
        close: () => (
          closed.push('driver'),
          Promise.reject(new Error('spec: driver close failed'))
        ),
      },
      close: () => (closed.push('backend'), backend.close()),
    };
    const app = await boot({ backend: failing, clock });
    const runtime = app.get(JobsRuntime);
    // what the module opened under the driver (a pool) must not leak because the driver's close failed
    await expect(runtime.close()).rejects.toThrow('spec: driver close failed');
    expect(closed).toEqual(['driver', 'backend']);
    // asked again (a second app.close(), a shutdown after a failed one), nothing is closed twice
    await expect(runtime.close()).rejects.toThrow('spec: driver close failed');
    await app.close().catch(() => undefined);
    open.splice(open.indexOf(app), 1);
    expect(closed).toEqual(['driver', 'backend']);
  });

  it("keeps driver: 'memory' and a driver instance as sugar over a backend", async () => {
    const onMemory = await boot({ driver: 'memory' });
    expect(onMemory.get(JobsRuntime).config.backend).toMatchObject({
      kind: 'memory',
      capabilities: memoryBackend().capabilities,
    });
    const driver = memoryJobDriver();
    const onInstance = await boot({ driver });
    expect(onInstance.get(JobsRuntime).config.backend).toMatchObject({
      driver,
      capabilities: driverBackend(driver).capabilities,
    });
  });

  it('refuses a backend beside a driver, and an object that is not a backend (X_INVARIANT)', async () => {
    expect(await rejectionCode(boot({ backend: memoryBackend(), driver: 'memory' }))).toBe(
      'X_INVARIANT',
    );
    const notOne = { driver: memoryJobDriver() } as unknown as JobsModuleOptions['backend'];
    expect(await rejectionCode(boot({ backend: notOne }))).toBe('X_INVARIANT');
    // one the module could never close at shutdown is not one either
    const { close: _close, ...unclosable } = memoryBackend();
    const noClose = unclosable as unknown as JobsModuleOptions['backend'];
    expect(await rejectionCode(boot({ backend: noClose }))).toBe('X_INVARIANT');
    expect(await rejectionCode(boot({}))).toBe('X_DRIVER_UNAVAILABLE');
  });
});
