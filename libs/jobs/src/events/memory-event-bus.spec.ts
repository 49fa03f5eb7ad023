import { frozenClock } from '../testing/frozen-clock';
import { memoryEventBus } from './memory-event-bus';
import { eventBusTenancyConformance } from './testing/event-bus-tenancy.conformance';
import { eventBusValuesConformance } from './testing/event-bus-values.conformance';
import { tenantEventsScenario } from './testing/tenant-events.scenario';

eventBusTenancyConformance('memory', async () => ({
  bus: memoryEventBus({ clock: frozenClock() }),
}));

// runJobs makes the bus on its own clock when handed none; here the scenario hands one on a clock of its own, which
// the memory bus reads only to stamp and expire events
tenantEventsScenario('memory', async () => memoryEventBus());

eventBusValuesConformance('memory', async () => ({
  bus: memoryEventBus({ clock: frozenClock() }),
}));
