import { Injectable, Logger } from '@nestjs/common';

/** A provisioned org, as the onboarding steps pass it along (plain JSON: it is stored as a step's output). */
export interface Org {
  readonly id: string;
  readonly name: string;
  readonly ownerEmail: string;
}

/** Orgs, kept in memory: a stand-in for the app's real persistence. */
@Injectable()
export class OrgsService {
  private readonly logger = new Logger(OrgsService.name);
  private readonly orgs = new Map<string, Org>();

  /** Creates the org's resources; provisioning an org twice answers the same org. */
  provision(orgId: string): Org {
    const existing = this.orgs.get(orgId);
    if (existing !== undefined) return existing;
    const org: Org = {
      id: orgId,
      name: `org-${orgId.slice(0, 8)}`,
      ownerEmail: `owner@${orgId.slice(0, 8)}.example`,
    };
    this.orgs.set(orgId, org);
    this.logger.log(`provisioned ${org.name}`);
    return org;
  }

  /** The provisioned org, if any. */
  find(orgId: string): Org | undefined {
    return this.orgs.get(orgId);
  }
}
