import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  HttpStatus,
  Param,
  Post,
} from '@nestjs/common';
import { onboardOrg } from '@ultimat3/example-jobs';
import { JobsService, type EnqueueResult } from '@ultimat3/jobs';

/** The body of `POST /orgs/onboard`. */
export interface OnboardManyBody {
  readonly orgIds?: unknown;
}

/** Starts onboarding. The work happens in the job; the request only queues it. */
@Controller('orgs')
export class OnboardingController {
  constructor(private readonly jobs: JobsService) {}

  /**
   * Queues the onboarding of many orgs in ONE statement, answering `{ id, runId, deduped }` per org in order. An org
   * id that is not a UUID anywhere in the list answers 400 with every bad item's `index` (the module's `httpErrors`),
   * and none is queued.
   */
  @Post('onboard')
  @HttpCode(HttpStatus.ACCEPTED)
  onboardMany(@Body() body: OnboardManyBody | undefined): Promise<EnqueueResult[]> {
    const orgIds = body?.orgIds;
    if (!Array.isArray(orgIds))
      throw new BadRequestException('orgIds must be an array of org ids.');
    return this.jobs.enqueueMany(
      onboardOrg,
      orgIds.map((orgId) => ({ orgId: orgId as string })),
    );
  }

  /** Queues the org's onboarding; a second call while it is live answers the same job (`deduped: true`). */
  @Post(':orgId/onboard')
  @HttpCode(HttpStatus.ACCEPTED)
  onboard(@Param('orgId') orgId: string): Promise<EnqueueResult> {
    return this.jobs.enqueue(onboardOrg, { orgId });
  }
}
