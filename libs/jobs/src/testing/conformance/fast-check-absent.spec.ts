import { memoryJobDriver } from '../../driver/memory';
import { JobsError } from '../../errors/jobs-error';
import { eventBusValuesConformance } from '../../events/testing/event-bus-values.conformance';
import { memoryEventBus } from '../../events/memory-event-bus';
import { jobDriverAgreement, jobDriverConformance } from './index';

// The optional peer not installed: requiring it fails as a missing module does. (It is a devDependency of the repo,
// so its absence can only be staged.)
jest.mock('fast-check', () => {
  throw Object.assign(new Error("Cannot find module 'fast-check'"), { code: 'MODULE_NOT_FOUND' });
});

/** What registering a suite threw (the suites register at once, so a throw is synchronous). */
function registering(register: () => void): unknown {
  try {
    register();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('the conformance suites without fast-check installed', () => {
  const thrown = [
    registering(() => jobDriverConformance('memory', (clock) => memoryJobDriver({ clock }))),
    registering(() => jobDriverAgreement('memory', (clock) => memoryJobDriver({ clock }))),
    registering(() => eventBusValuesConformance('memory', async () => ({ bus: memoryEventBus() }))),
  ];

  it('refuse to register with X_PEER_MISSING naming fast-check and the install line', () => {
    for (const error of thrown) {
      expect(error).toBeInstanceOf(JobsError);
      expect(error).toMatchObject({
        code: 'X_PEER_MISSING',
        fix: 'npm install fast-check',
        meta: { packages: ['fast-check'] },
      });
      expect((error as Error).message).toMatch(
        /jobDriverConformance.*needs the optional peer fast-check/,
      );
    }
  });
});
