import type {
  ClaimAndRescueResult,
  ClaimOptions,
  JobDriver,
  RescueRequest,
  RescueResult,
} from './job-driver';

/**
 * One claim pass that also rescues lapsed leases (the worker's combined path), answering the rows it handed out and,
 * apart, the rows its rescue buried. Through the driver's {@link JobDriver.claimRescuing} when it has one — ONE
 * statement on PostgreSQL, one round trip on Redis — else {@link JobDriver.rescue} then {@link JobDriver.claim}, two
 * round trips with the same outcome. On that second path a claim that fails after the rescue buried rows answers no
 * rows rather than rejecting: the burials (settled and counted already) are still answered, and the next claim meets
 * the failure again. A claim without rescue is `driver.claim(options)`.
 */
export async function claimAndRescue(
  driver: Pick<JobDriver, 'claim' | 'rescue' | 'claimRescuing'>,
  claim: ClaimOptions,
  rescue: RescueRequest = {},
): Promise<ClaimAndRescueResult> {
  if (driver.claimRescuing !== undefined) return driver.claimRescuing(claim, rescue);
  const rescued: RescueResult = await driver.rescue({
    slots: claim.slots,
    visibilityTimeoutMs: claim.visibilityTimeoutMs,
    ...(rescue.dropExhausted === undefined ? {} : { dropExhausted: rescue.dropExhausted }),
  });
  try {
    return { claimed: await driver.claim(claim), rescued };
  } catch (error) {
    if (rescued.buried.length === 0) throw error;
    return { claimed: [], rescued };
  }
}
