import { Injectable } from '@nestjs/common';
import { Job, type JobRunArgs } from '@ultimat3/jobs';
import { MailService } from './mail.service';
import { onboardOrg } from './onboarding.jobs';
import { OrgsService } from './orgs.service';

/** The body of `onboardOrg`: each step runs once ever, and the three-day wait holds no process. */
@Injectable()
export class OnboardingJobs {
  constructor(
    private readonly orgs: OrgsService,
    private readonly mail: MailService,
  ) {}

  @Job(onboardOrg)
  async onboard({ input, step }: JobRunArgs<typeof onboardOrg>): Promise<void> {
    const org = await step.run('provision', () => this.orgs.provision(input.orgId));
    await step.run('welcome-email', () => this.mail.welcome(org));
    await step.sleep('3d');
    await step.run('nudge', () => this.mail.nudge(org));
  }
}
