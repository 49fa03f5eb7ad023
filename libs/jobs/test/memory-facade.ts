import { setJobsFacade } from '../src/declare/ambient';
import { directJobsFacade } from '../src/declare/direct-facade';
import { memoryJobDriver, type MemoryJobDriver } from '../src/driver/memory';
import { frozenClock, type FrozenClock } from '../src/testing/frozen-clock';

/** The current test's memory driver and clock, behind the facade {@link memoryFacadeEach} installed. */
export interface MemoryFacade {
  readonly driver: MemoryJobDriver;
  readonly clock: FrozenClock;
}

/**
 * Installs, before each test of the enclosing `describe`, the direct facade over a fresh memory driver on a frozen
 * clock (at `startMs`, or the frozen clock's default), so that handles enqueue through it; uninstalls it after.
 */
export function memoryFacadeEach(startMs?: number): MemoryFacade {
  let current: MemoryFacade | undefined;
  let uninstall: () => void = () => undefined;
  beforeEach(() => {
    const clock = frozenClock(startMs);
    const driver = memoryJobDriver({ clock });
    current = { driver, clock };
    uninstall = setJobsFacade(directJobsFacade({ driver, clock }));
  });
  afterEach(() => {
    uninstall();
    current = undefined;
  });
  const now = (): MemoryFacade => {
    if (current === undefined) throw new Error('memoryFacadeEach is read inside a test only');
    return current;
  };
  return {
    get driver() {
      return now().driver;
    },
    get clock() {
      return now().clock;
    },
  };
}
