import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { job } from '../../declare/job';
import { t } from '../../schema';
import { frozenClock } from '../../testing/frozen-clock';
import type { JobsLogger } from '../../util/logger';
import { JobsModule } from '../jobs.module';
import { JobsLifecycle } from './jobs.lifecycle';
import { closeRecordingDriver } from '../../../test/close-recording-driver';

/** Ignores its abort: only the shutdown deadline ends the drain's wait for it. */
const stubborn = job({
  name: 'drain-hold-spec.stubborn',
  input: t.object({}),
  idempotencyKey: () => 'stubborn',
  tenant: 'none',
  run: () => new Promise<never>(() => undefined),
});

const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const REGISTER = join(ROOT, 'libs', 'jobs-pg', 'test', 'swc-register.js');
const SRC = join(__dirname, '..', '..');

/**
 * A worker process as an app runs one: `createApplicationContext` with `enableShutdownHooks()`, the worker role on the
 * memory driver (no socket of its own keeps the event loop busy), one run that ignores its abort, a 300 ms deadline.
 * It prints each log event and `driver.close` on a line of its own, and `ready` once the run is running.
 */
const WORKER_PROCESS = `
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const { Module } = require('@nestjs/common');
const { job } = require(${JSON.stringify(join(SRC, 'declare', 'job'))});
const { memoryJobDriver } = require(${JSON.stringify(join(SRC, 'driver', 'memory'))});
const { t } = require(${JSON.stringify(join(SRC, 'schema'))});
const { JobsModule } = require(${JSON.stringify(join(SRC, 'nest', 'jobs.module'))});
const print = (line) => process.stdout.write(line + '\\n');
const stubborn = job({
  name: 'drain-hold-spec.stubborn',
  input: t.object({}),
  idempotencyKey: () => 'stubborn',
  tenant: 'none',
  run: () => new Promise(() => undefined),
});
const memory = memoryJobDriver();
const driver = { ...memory, close: async () => { print('driver.close'); await memory.close(); } };
class AppModule {}
Module({
  imports: [
    JobsModule.forRoot({
      driver,
      logger: { log: (_level, event) => print(event) },
      roles: ['worker'],
      retention: false,
      shutdown: { deadlineMs: 300 },
    }),
    JobsModule.forFeature({ jobs: [{ stubborn }] }),
  ],
})(AppModule);
(async () => {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  app.enableShutdownHooks();
  const { id } = await stubborn.enqueue({});
  while ((await memory.get(id))?.state !== 'running') await new Promise((r) => setTimeout(r, 5));
  print('ready');
})();
`;

describe('JobsLifecycle holds the process through the drain', () => {
  it('is still held while the drain waits for a run, up to the deadline, and lets go once the driver closed', async () => {
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
          retention: false,
          shutdown: { deadlineMs: 1_000 },
        }),
        JobsModule.forFeature({ jobs: [{ stubborn }] }),
      ],
    }).compile();
    await app.init();
    const lifecycle = app.get(JobsLifecycle);
    const { id } = await stubborn.enqueue({});
    for (let turn = 0; turn < 50 && (await driver.get(id))?.state !== 'running'; turn++) {
      await clock.advance(10);
    }
    expect((await driver.get(id))?.state).toBe('running');

    const closing = app.close('SIGTERM');
    await clock.advance(500);
    expect(order).toContain('jobs.worker.draining');
    expect(order).not.toContain('jobs.worker.stopped');
    // every runtime timer is unref'd: let go of the hold now and nothing keeps the drain's process alive
    expect(lifecycle.holdsProcess).toBe(true);

    await clock.advance(500);
    await closing;
    expect(order).toContain('jobs.worker.drain-abandoned');
    expect(order.at(-1)).toBe('driver.close');
    expect(lifecycle.holdsProcess).toBe(false);
  });

  it('a worker process sent SIGTERM drains to the deadline, closes the driver and exits 0 — not 0 on its own, mid-drain', async () => {
    const child = spawn(process.execPath, ['-r', REGISTER, '-e', WORKER_PROCESS], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.split('\n').includes('ready')) resolve();
      });
      void exited.then(() => reject(new Error(`the worker exited before ready:\n${out}`)));
    });

    child.kill('SIGTERM');
    const [code, signal] = await exited;

    const lines = out.split('\n');
    const at = (event: string): number => lines.indexOf(event);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(at('jobs.worker.draining')).toBeGreaterThan(at('ready'));
    expect(at('jobs.worker.drain-abandoned')).toBeGreaterThan(at('jobs.worker.draining'));
    expect(at('jobs.worker.stopped')).toBeGreaterThan(at('jobs.worker.drain-abandoned'));
    expect(at('driver.close')).toBeGreaterThan(at('jobs.worker.stopped'));
  });
});
