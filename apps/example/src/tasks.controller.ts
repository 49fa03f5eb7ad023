import { Controller, Get } from '@nestjs/common';
import { JobsService, type TaskDescriptor } from '@ultimat3/jobs';

/** Read-only view of the recurring tasks this app schedules. */
@Controller('tasks')
export class TasksController {
  constructor(private readonly jobs: JobsService) {}

  /** Every registered task's descriptor: its cron, zone, catch-up policy and the jobs it enqueues. */
  @Get()
  tasks(): readonly TaskDescriptor[] {
    return this.jobs.tasks();
  }
}
