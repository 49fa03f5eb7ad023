import { Injectable } from '@nestjs/common';
import { Job, type JobRunArgs } from '@ultimat3/jobs';
import { pollHost, pollHosts } from './fleet.jobs';
import { HostsService } from './hosts.service';

/** The bodies of the fleet poll's two jobs. */
@Injectable()
export class FleetJobs {
  constructor(private readonly hosts: HostsService) {}

  /** Lists the hosts once per run, then enqueues one child per host, each in a step named by the host. */
  @Job(pollHosts)
  async fanOut({ input, step }: JobRunArgs<typeof pollHosts>): Promise<void> {
    const hosts = await step.run('list', () => this.hosts.list());
    for (const host of hosts) {
      await step.run(`enqueue:${host.id}`, () =>
        pollHost.enqueue({ hostId: host.id, occurrenceMs: input.occurrenceMs }),
      );
    }
  }

  /** Probes one host. */
  @Job(pollHost)
  probe({ input }: JobRunArgs<typeof pollHost>): void {
    this.hosts.probe(input.hostId, input.occurrenceMs);
  }
}
