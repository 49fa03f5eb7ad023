import type { BackfillSource } from '../../backfill/keyset-source';
import { declareBackfill, type BackfillHandle } from '../../declare/backfill';
import type {
  BackfillDefinition,
  BackfillHandleArgs,
  BackfillSourceArgs,
} from '../../declare/backfill-definition';
import { BackfillDeclarationInvalidError } from '../../errors/backfill-errors';
import { JobUnboundError } from '../../errors/runtime-errors';

/** What `@Backfill()` takes: a `backfill()` declaration without `source`, `handle` and `count` (the class has them). */
export type BackfillClassOptions = Omit<BackfillDefinition<unknown>, 'source' | 'handle' | 'count'>;

/**
 * The methods a `@Backfill` class provides: `source()` and `handle()`, and `count()` when it declares one. They run
 * with the provider as `this`, so an injected repository or `DataSource` is at hand.
 */
export interface BackfillProvider {
  /** Builds the rows' query for one page. */
  source(args: BackfillSourceArgs): BackfillSource<unknown>;
  /** Does the work for one page of rows. */
  handle(args: BackfillHandleArgs<never>): void | Promise<void>;
  /** Counts the rows `source` selects (optional). */
  count?(args: BackfillSourceArgs): number | Promise<number>;
}

/** What `@Backfill` leaves on a class: the backfill it declared, and how a discovered instance serves it. */
export interface BackfillClassBinding {
  /** The backfill the class declared. */
  readonly handle: BackfillHandle;
  /** The class name, for logs. */
  readonly binder: string;
  /** Makes `instance` the one the pass calls; answers the unbinding. */
  bind(instance: object): () => void;
  /** Whether an instance is bound (a declaration never bound is reported at boot). */
  bound(): boolean;
}

/** The binding of each decorated class: read by the explorer, keyed weakly by the class. */
const bindings = new WeakMap<object, BackfillClassBinding>();

/** Every `@Backfill` class declared in this process, in order: what the boot report of unbound ones walks. */
const declared: BackfillClassBinding[] = [];

/** The `@Backfill` declarations no running app has bound an instance to. */
export function unboundBackfillClasses(): BackfillClassBinding[] {
  return declared.filter((binding) => !binding.bound());
}

/** The `@Backfill` binding of a class, if it is one. */
export function backfillBindingOf(target: unknown): BackfillClassBinding | undefined {
  return typeof target === 'function' ? bindings.get(target) : undefined;
}

/** The handle a `@Backfill` class declared: enqueue it (`await backfillHandleOf(RewriteSlugs).enqueue({})`). */
export function backfillHandleOf(
  target: abstract new (...args: never[]) => object,
): BackfillHandle {
  const binding = bindings.get(target);
  if (binding === undefined) {
    throw new BackfillDeclarationInvalidError(target.name, '@Backfill', 'is not on this class');
  }
  return binding.handle;
}

/**
 * Declares a backfill whose `source()`, `handle()` (and `count()`) are the methods of a Nest provider, so they can use
 * injected repositories and services. The backfill is declared when the class is — a bad batch or rate fails there,
 * as `backfill()` would — and served once the explorer has bound the provider in a bootstrapped app (registering the
 * job with the module: nothing else to list). Its checksum hashes the class's methods. A class declared and never
 * provided is reported at boot (`jobs.backfill.unbound`), and its pass fails `X_JOB_UNBOUND`.
 *
 * @example
 * ```ts
 * @Backfill({ name: 'rewrite-slugs', batch: 1_000, rate: 5, tenant: 'none' })
 * @Injectable()
 * export class RewriteSlugs {
 *   constructor(@InjectRepository(Post) private readonly posts: Repository<Post>) {}
 *   source() { return this.posts.createQueryBuilder('post').where('post.slug is null'); }
 *   async handle({ rows }: BackfillHandleArgs<Post>) { await this.posts.save(rows.map(slugged)); }
 * }
 * ```
 */
export function Backfill(
  options: BackfillClassOptions,
): <C extends abstract new (...args: never[]) => BackfillProvider>(target: C) => void {
  return (target) => {
    const proto = target.prototype as Partial<BackfillProvider>;
    const name = typeof options?.name === 'string' ? options.name : `@Backfill on ${target.name}`;
    for (const method of ['source', 'handle'] as const) {
      if (typeof proto[method] !== 'function') {
        throw new BackfillDeclarationInvalidError(
          name,
          `${target.name}.${method}()`,
          'is required',
        );
      }
    }
    const instances: BackfillProvider[] = [];
    const current = (): BackfillProvider => {
      const instance = instances.at(-1);
      if (instance === undefined) throw new JobUnboundError(name);
      return instance;
    };
    const handle = declareBackfill<never>(
      {
        ...options,
        source: (args) => current().source(args) as BackfillSource<never>,
        handle: (args) => current().handle(args),
        ...(typeof proto.count === 'function'
          ? {
              count: (args: BackfillSourceArgs) =>
                (current().count as NonNullable<BackfillProvider['count']>).call(current(), args),
            }
          : {}),
      },
      { source: proto.source, handle: proto.handle, count: proto.count },
    );
    const binding: BackfillClassBinding = {
      handle,
      binder: target.name,
      bind(instance) {
        instances.push(instance as BackfillProvider);
        return () => {
          const at = instances.lastIndexOf(instance as BackfillProvider);
          if (at >= 0) instances.splice(at, 1);
        };
      },
      bound: () => instances.length > 0,
    };
    bindings.set(target, binding);
    declared.push(binding);
  };
}
