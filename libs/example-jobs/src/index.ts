export * from './mail.service';
export * from './onboarding.handler';
export * from './onboarding.jobs';
export * from './onboarding.module';
export * from './orgs.service';
