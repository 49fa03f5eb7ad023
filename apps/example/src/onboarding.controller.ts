import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { onboardOrg } from '@ultimat3/example-jobs';
import { JobsService, type EnqueueResult } from '@ultimat3/jobs';

/** Starts onboarding. The work happens in the job; the request only queues it. */
@Controller('orgs')
export class OnboardingController {
  constructor(private readonly jobs: JobsService) {}

  /** Queues the org's onboarding; a second call while it is live answers the same job (`deduped: true`). */
  @Post(':orgId/onboard')
  @HttpCode(HttpStatus.ACCEPTED)
  onboard(@Param('orgId') orgId: string): Promise<EnqueueResult> {
    return this.jobs.enqueue(onboardOrg, { orgId });
  }
}
