export { webhook, WEBHOOK_USER_AGENT, type WebhookDefinition } from './webhook';
export type { WebhookDelivered, WebhookInput } from './webhook-delivery';
export type { WebhookEndpoint, WebhookEvent } from './webhook-reads';
export {
  MAX_WEBHOOK_ATTEMPTS_PAGE,
  webhookAttemptsLimit,
  type WebhookAttempt,
  type WebhookAttemptOutcome,
  type WebhookDisable,
  type WebhookLedger,
} from './webhook-ledger';
export {
  memoryWebhookLedger,
  type MemoryWebhookLedger,
  type MemoryWebhookLedgerOptions,
} from './memory-webhook-ledger';
export { isNonPublicAddress, type WebhookDestinations } from './webhook-destination';
export { retryAfterSeconds } from './retry-after';
export {
  signWebhook,
  verifyWebhookSignature,
  webhookMac,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_TOPIC_HEADER,
  type VerifyWebhookOptions,
  type WebhookRefusal,
  type WebhookRequestLike,
  type WebhookSignedParts,
  type WebhookVerification,
} from './webhook-signature';
export { WebhookSignatureGuard, type WebhookGuardOptions } from './webhook-guard';
