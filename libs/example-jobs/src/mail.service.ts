import { Injectable, Logger } from '@nestjs/common';
import type { Org } from './orgs.service';

/** One email that was sent. */
export interface SentMail {
  readonly to: string;
  readonly template: 'welcome' | 'nudge';
  readonly orgId: string;
}

/** Mail, kept in memory: a stand-in for the app's real mail provider. */
@Injectable()
export class MailService {
  private readonly logger = new Logger(MailService.name);
  /** Every email sent, oldest first. */
  readonly sent: SentMail[] = [];

  /** Sends the welcome email to the org's owner. */
  welcome(org: Org): SentMail {
    return this.send({ to: org.ownerEmail, template: 'welcome', orgId: org.id });
  }

  /** Sends the follow-up nudge. */
  nudge(org: Org): SentMail {
    return this.send({ to: org.ownerEmail, template: 'nudge', orgId: org.id });
  }

  private send(mail: SentMail): SentMail {
    this.sent.push(mail);
    this.logger.log(`sent ${mail.template} to ${mail.to}`);
    return mail;
  }
}
