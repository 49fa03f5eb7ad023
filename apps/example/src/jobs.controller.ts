import { Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { JobsService, type JobDescriptor, type JobRow, type StepRecord } from '@ultimat3/jobs';

/** Read-only views of the jobs this app knows and runs. */
@Controller('jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  /** The manifest: every registered job's descriptor. */
  @Get()
  manifest(): readonly JobDescriptor[] {
    return this.jobs.manifest();
  }

  /** One job row. */
  @Get(':id')
  async get(@Param('id') id: string): Promise<JobRow> {
    const row = await this.jobs.driver.get(id);
    if (row === undefined) throw new NotFoundException(`No job with id ${id}.`);
    return row;
  }

  /** The steps the job has completed, in order. */
  @Get(':id/steps')
  async steps(@Param('id') id: string): Promise<readonly StepRecord[]> {
    await this.get(id);
    return this.jobs.driver.steps.load(id);
  }
}
