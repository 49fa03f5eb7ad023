import { memoryJobDriver } from '../driver/memory';
import { memorySchedulerState } from './memory-scheduler-state';
import { schedulerStateConformance } from './testing/scheduler-state.conformance';

schedulerStateConformance('memory', (clock) => {
  const driver = memoryJobDriver({ clock });
  return { state: memorySchedulerState({ driver, clock }), driver };
});
