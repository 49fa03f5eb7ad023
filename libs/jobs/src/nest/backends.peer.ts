import { OptionalPeerMissingError } from '../errors/declaration-errors';
import { JobsError } from '../errors/jobs-error';

/** Loads an optional peer package; tests pass another loader. */
export type PeerPackageLoader = () => unknown;

/** What {@link loadDriverPeer} needs to know about the peer behind a driver name. */
export interface DriverPeer {
  /** The driver name the options gave (`'postgres'`, `'redis'`). */
  readonly driver: string;
  /** The package that implements it. */
  readonly packageName: string;
  /** Every package an app installs for it (the install line). */
  readonly install: readonly string[];
  /** The function the package must export. */
  readonly entry: string;
}

/**
 * Loads the package behind a driver name, at boot and only when it is named: an app on another driver installs none
 * of it. A package that cannot be loaded (not installed, or failing to load) is `X_PEER_MISSING` with the install
 * line; one without the expected entry point `X_DRIVER_UNAVAILABLE` (a version that does not match).
 */
export function loadDriverPeer<T>(peer: DriverPeer, load: PeerPackageLoader): T {
  let loaded: unknown;
  try {
    loaded = load();
  } catch (error) {
    throw new OptionalPeerMissingError(`JobsModule driver '${peer.driver}'`, peer.install, error);
  }
  const entry = (loaded as Record<string, unknown> | null | undefined)?.[peer.entry];
  if (typeof entry !== 'function') {
    throw new JobsError(
      'X_DRIVER_UNAVAILABLE',
      `JobsModule driver '${peer.driver}': ${peer.packageName} has no ${peer.entry}().`,
      { fix: `Install a version of ${peer.packageName} that matches @ultimat3/jobs.` },
    );
  }
  return loaded as T;
}
