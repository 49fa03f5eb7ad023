import { Injectable, type ModuleMetadata } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../src/declare/job';
import type { JobRunArgs } from '../src/declare/run-args';
import { memoryJobDriver } from '../src/driver/memory';
import type { JobRow } from '../src/driver/job-row';
import { t } from '../src/schema';
import { frozenClock, type FrozenClock } from '../src/testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../src/util/logger';
import { Job } from '../src/nest/decorators/job.decorator';
import { JobsModule } from '../src/nest/jobs.module';
import type { JobsModuleOptions } from '../src/nest/jobs.options';

/** The JobsModule specs' app: a job bound to a provider method, booted on a frozen clock and a memory driver. */

/** The tenant the specs enqueue for. */
export const ORG = '0190a6f2-6b1e-7c3a-8f00-000000000001';

/** A service the bound job method uses, so a test can see the injection worked. */
@Injectable()
export class Greeter {
  readonly greeted: string[] = [];

  greet(orgId: string): string {
    this.greeted.push(orgId);
    return `hello ${orgId}`;
  }
}

/** The job `GreetingJobs.greet` is bound to. */
export const greetOrg = job({
  name: 'nest-spec.greet-org',
  input: t.object({ orgId: t.uuid }),
  idempotencyKey: ({ orgId }) => `greet:${orgId}`,
  tenant: ({ orgId }) => orgId,
});

/** The provider binding `greetOrg` with `@Job`, greeting through the injected `Greeter`. */
@Injectable()
export class GreetingJobs {
  constructor(private readonly greeter: Greeter) {}

  @Job(greetOrg)
  async greet({ input, step }: JobRunArgs<typeof greetOrg>): Promise<string> {
    return step.run('greet', () => this.greeter.greet(input.orgId));
  }
}

/** The feature `JobsModule.forFeature` is given in the specs. */
export const greetingFeature = { greetOrg };

/** A booted testing module with what it was booted on. */
export interface Booted {
  readonly app: TestingModule;
  readonly clock: FrozenClock;
  readonly logger: RecordingLogger;
  readonly driver: ReturnType<typeof memoryJobDriver>;
}

/** What {@link boot} builds on, when a test brings its own. */
export interface BootRig {
  /** The clock (default: a fresh {@link frozenClock}). */
  readonly clock?: FrozenClock;
  /** The memory driver on that clock (default: a fresh one); another driver goes in the options' `driver`. */
  readonly driver?: ReturnType<typeof memoryJobDriver>;
  /** Runs on the compiled module before `init()` (a metrics sink registered ahead of the bootstrap). */
  readonly beforeInit?: (app: TestingModule) => void;
}

const open: TestingModule[] = [];
/** Compiles and initialises a testing module on a frozen clock and a memory driver. */
export async function boot(
  metadata: ModuleMetadata,
  options: Partial<JobsModuleOptions> = {},
  rig: BootRig = {},
): Promise<Booted> {
  const clock = rig.clock ?? frozenClock();
  const logger = recordingLogger();
  const driver = rig.driver ?? memoryJobDriver({ clock });
  const app = await Test.createTestingModule({
    ...metadata,
    imports: [
      // the module's own retention sweep is off: these tests list and count the app's declarations only
      JobsModule.forRoot({
        driver,
        clock,
        logger,
        roles: ['web', 'worker'],
        retention: false,
        ...options,
      }),
      ...(metadata.imports ?? []),
    ],
  }).compile();
  open.push(app);
  rig.beforeInit?.(app);
  await app.init();
  return { app, clock, logger, driver };
}

/** Lets the worker run on the frozen clock until `done` answers a row (a bounded number of turns, no wall time). */
export async function until(
  booted: Booted,
  id: string,
  done: (row: JobRow) => boolean,
): Promise<JobRow> {
  for (let turn = 0; turn < 50; turn++) {
    const row = await booted.driver.get(id);
    if (row !== undefined && done(row)) return row;
    await booted.clock.advance(10);
  }
  throw new Error(`job ${id} never reached the expected state`);
}

/** Has `closeBooted` close a module a spec compiled itself. */
export function closeAfterTest(app: TestingModule): void {
  open.push(app);
}

/** A module the test closed itself: `closeBooted` leaves it alone. */
export function forgetBooted(app: TestingModule): void {
  const at = open.indexOf(app);
  if (at >= 0) open.splice(at, 1);
}

/** Closes every module `boot` (or `closeAfterTest`) opened, newest first: each facade restores the one installed before it. */
export async function closeBooted(): Promise<void> {
  for (const app of open.splice(0).reverse()) await app.close();
}
