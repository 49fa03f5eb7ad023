import { memoryEventBus } from './memory-event-bus';
import { tenantEventsScenario } from './testing/tenant-events.scenario';

// the event bus conformance (tenancy and values) runs once, from backendConformance in src/driver/memory.spec.ts

// runJobs makes the bus on its own clock when handed none; here the scenario hands one on a clock of its own, which
// the memory bus reads only to stamp and expire events
tenantEventsScenario('memory', async () => memoryEventBus());
