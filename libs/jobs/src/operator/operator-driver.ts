import type { JobIntrospection } from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import { NotImplementedError } from '../errors/runtime-errors';

/**
 * The driver's operator surface, or `X_NOT_IMPLEMENTED` naming what asked for it: a hand-rolled driver with no
 * `introspect` answers every operator function the same way.
 */
export function introspectionOf(driver: JobDriver, what: string): JobIntrospection {
  const introspect = driver.introspect;
  if (introspect === undefined) throw new NotImplementedError(`${what} (driver.introspect)`);
  return introspect;
}
