import { IDLE_POLL_CEILING_MS } from '../worker/worker-options';
import { WorkerHost } from './worker.host';
import { JobsModule } from './jobs.module';
import {
  boot,
  closeBooted,
  Greeter,
  greetingFeature,
  GreetingJobs,
  greetOrg,
  ORG,
} from '../../test/nest-boot';

/**
 * What the worker host serves: an enqueue in this process wakes an idle worker at once (not at its next idle poll),
 * and a worker told its queues starts even when this process declares no job (the jobs live in another deployable).
 */

afterEach(closeBooted);

describe('WorkerHost serving', () => {
  it('runs a job enqueued in this process at once, even after the worker went idle', async () => {
    const booted = await boot({
      imports: [JobsModule.forFeature({ jobs: [greetingFeature] })],
      providers: [Greeter, GreetingJobs],
    });
    // nothing to claim for a while: the idle poll backs off to its ceiling
    await booted.clock.advance(5 * IDLE_POLL_CEILING_MS);
    const { id } = await greetOrg.enqueue({ orgId: ORG });
    // far less time than the idle poll: only the in-process wake can have started the run
    for (let turn = 0; turn < 20 && (await booted.driver.get(id))?.state !== 'done'; turn++) {
      await booted.clock.advance(1);
    }
    expect((await booted.driver.get(id))?.state).toBe('done');
    expect(booted.app.get(Greeter).greeted).toEqual([ORG]);
  });

  it('starts a worker given worker.queues with no job registered here, and does not call it idle', async () => {
    const booted = await boot({}, { worker: { queues: ['default'] } });
    expect(booted.app.get(WorkerHost).worker).toBeDefined();
    expect(booted.logger.named('jobs.worker.nothing-to-serve')).toHaveLength(0);
  });
});
