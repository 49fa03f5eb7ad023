import { Module } from '@nestjs/common';
import { JobsModule } from '@ultimat3/jobs';
import { FleetJobs } from './fleet.handler';
import * as fleetJobs from './fleet.jobs';
import * as fleetTasks from './fleet.tasks';
import { HostsService } from './hosts.service';

/**
 * The fleet poll: the `pollFleet` task, the `pollHosts` fan-out and the `pollHost` child. Registering the namespaces
 * stamps their export names as the durable names.
 */
@Module({
  imports: [JobsModule.forFeature({ jobs: [fleetJobs], tasks: [fleetTasks] })],
  providers: [HostsService, FleetJobs],
  exports: [HostsService],
})
export class FleetModule {}
