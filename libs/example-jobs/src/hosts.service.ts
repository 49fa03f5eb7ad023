import { Injectable, Logger } from '@nestjs/common';

/** One host of the fleet (plain JSON: the fan-out stores the list as a step's output). */
export interface Host {
  readonly id: string;
  readonly name: string;
}

/** One probe of one host, for one tick of the fleet poll. */
export interface HostPoll {
  readonly hostId: string;
  readonly occurrenceMs: number;
}

/** The example fleet: three hosts, kept in memory. */
export const EXAMPLE_HOSTS: readonly Host[] = [
  { id: '0190b0a1-5c2e-7d4f-8a00-000000000001', name: 'edge-fra-1' },
  { id: '0190b0a1-5c2e-7d4f-8a00-000000000002', name: 'edge-iad-1' },
  { id: '0190b0a1-5c2e-7d4f-8a00-000000000003', name: 'edge-sin-1' },
];

/** The fleet, kept in memory: a stand-in for the app's hosts table and the network probe. */
@Injectable()
export class HostsService {
  private readonly logger = new Logger(HostsService.name);
  /** Every probe made, oldest first. */
  readonly polls: HostPoll[] = [];

  /** The hosts to poll. Asynchronous, as a query would be: this is why the fan-out is a job, not the task. */
  list(): Promise<readonly Host[]> {
    return Promise.resolve(EXAMPLE_HOSTS);
  }

  /** Probes one host for one tick. */
  probe(hostId: string, occurrenceMs: number): HostPoll {
    const poll = { hostId, occurrenceMs };
    this.polls.push(poll);
    this.logger.log(`polled ${hostId} for ${new Date(occurrenceMs).toISOString()}`);
    return poll;
  }
}
