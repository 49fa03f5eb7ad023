import {
  BACKEND_CAPABILITIES,
  type BackendCapabilities,
  type BackendCapability,
} from '../../driver/backend';

/** The suites every backend runs, whatever it declares. */
export const CORE_SUITES: readonly string[] = [
  'enqueue',
  'claim',
  'rescue',
  'names',
  'settle',
  'stats',
  'value regressions',
  'value properties',
  'progress values',
  'failures',
];

/** The suites each capability calls for; empty: the capability is checked by presence only. */
export const CAPABILITY_SUITES: Readonly<Record<BackendCapability, readonly string[]>> = {
  steps: ['steps'],
  events: ['event bus tenancy', 'event bus values'],
  leases: ['leases'],
  introspection: ['introspection', 'counters', 'operator values'],
  schedulerState: ['scheduler state'],
  leader: ['leader'],
  wake: [],
  batchAck: ['ackMany'],
  handOff: ['hand-off'],
};

/** A capability the backend does not declare, and the suites that therefore did not run. */
export interface SkippedCapability {
  /** The capability the backend does not declare. */
  readonly capability: BackendCapability;
  /** The suites that did not run for want of it. */
  readonly suites: readonly string[];
  /** Why those suites need it. */
  readonly reason: string;
}

/** What `backendConformance` runs for a backend's declared capabilities, and what it skips and why. */
export interface ConformancePlan {
  /** Every suite that runs, core first. */
  readonly runs: readonly string[];
  /** Each undeclared capability: its suites are replaced by one check that the backend really lacks it. */
  readonly skipped: readonly SkippedCapability[];
  /** Declared capabilities no shared suite covers (checked by presence; each backend's own specs cover them). */
  readonly presenceOnly: readonly BackendCapability[];
}

/** The plan for `capabilities`: what runs, what is skipped (not declared) and what is only checked by presence. */
export function backendConformancePlan(capabilities: BackendCapabilities): ConformancePlan {
  const runs = [...CORE_SUITES];
  const skipped: SkippedCapability[] = [];
  const presenceOnly: BackendCapability[] = [];
  for (const capability of BACKEND_CAPABILITIES) {
    const suites = CAPABILITY_SUITES[capability];
    if (!capabilities[capability]) {
      skipped.push({ capability, suites, reason: 'not declared by the backend' });
    } else if (suites.length === 0) {
      presenceOnly.push(capability);
    } else {
      runs.push(...suites);
    }
  }
  return { runs, skipped, presenceOnly };
}

/** One line naming what a plan skipped, for a describe title: `skipped: wake, batchAck (not declared)` or `skipped: none`. */
export function skippedLine(plan: ConformancePlan): string {
  if (plan.skipped.length === 0) return 'skipped: none';
  return `skipped: ${plan.skipped.map((s) => s.capability).join(', ')} (not declared)`;
}
