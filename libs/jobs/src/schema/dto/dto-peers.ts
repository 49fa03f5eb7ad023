import { OptionalPeerMissingError } from '../../errors/declaration-errors';

/** The part of a class-validator `ValidationError` the adapter reads (structural: no import of the peer's types). */
export interface ValidationErrorLike {
  readonly property: string;
  readonly value?: unknown;
  readonly constraints?: Readonly<Record<string, string>>;
  readonly children?: readonly ValidationErrorLike[];
}

/** The two functions of each optional peer the DTO adapter calls. */
export interface DtoPeers {
  /** class-transformer's `plainToInstance`. */
  plainToInstance(cls: new (...args: never[]) => object, plain: object, options?: object): object;
  /** class-transformer's `instanceToPlain`. */
  instanceToPlain(instance: object, options?: object): Record<string, unknown>;
  /** class-validator's `validate`. */
  validate(instance: object, options?: object): Promise<readonly ValidationErrorLike[]>;
}

/** The packages a DTO class input needs, in the order the fix installs them. */
export const DTO_PEERS: readonly string[] = ['class-validator', 'class-transformer'];

let loaded: DtoPeers | undefined;

/**
 * Loads class-validator and class-transformer the first time a DTO class is declared as an input, never before: both
 * are optional peers, and an app that declares no class must boot without them. A peer that cannot be loaded is
 * `X_PEER_MISSING` naming both packages, thrown where the job is declared.
 *
 * Plain `require` on purpose: the peers must be the app's own copies (class-transformer keeps the `@Type()` metadata
 * in a module-level store), resolved the way the app's own `import` resolved them.
 */
export function loadDtoPeers(): DtoPeers {
  if (loaded !== undefined) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const validator = require('class-validator') as Pick<DtoPeers, 'validate'>;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const transformer = require('class-transformer') as Pick<
      DtoPeers,
      'plainToInstance' | 'instanceToPlain'
    >;
    if (
      typeof validator.validate !== 'function' ||
      typeof transformer.plainToInstance !== 'function' ||
      typeof transformer.instanceToPlain !== 'function'
    ) {
      throw new TypeError('validate, plainToInstance or instanceToPlain is not a function');
    }
    loaded = {
      validate: (instance, options) => validator.validate(instance, options),
      plainToInstance: (cls, plain, options) => transformer.plainToInstance(cls, plain, options),
      instanceToPlain: (instance, options) => transformer.instanceToPlain(instance, options),
    };
    return loaded;
  } catch (cause) {
    throw new OptionalPeerMissingError('A class-validator DTO as a job input', DTO_PEERS, cause);
  }
}
