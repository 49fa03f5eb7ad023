/** The part of `@nestjs-cls/transactional` read here, structurally: the package is an optional peer. */
interface TransactionHostLike {
  isTransactionActive(): boolean;
  readonly tx: unknown;
}

interface TransactionalPackage {
  readonly TransactionHost?: { getInstance?: () => TransactionHostLike };
}

/** Loads `@nestjs-cls/transactional`; tests pass another loader. */
export type TransactionalPackageLoader = () => unknown;

const loadTransactional: TransactionalPackageLoader = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, read only when installed
  require('@nestjs-cls/transactional') as unknown;

/**
 * The third source of "the caller's transaction", after an explicit `{ tx }` and `OutboxInterceptor`'s: the
 * transaction `@nestjs-cls/transactional` holds active (`@Transactional()`, `txHost.withTransaction`), when that
 * package is installed. With the TypeORM adapter its `tx` is the transaction's `EntityManager`, which the outbox store
 * stages on. Answers undefined when the package is absent, not set up, or no transaction is active.
 */
export function clsTransactionReader(
  load: TransactionalPackageLoader = loadTransactional,
): () => unknown {
  let pkg: TransactionalPackage | null | undefined;
  return () => {
    if (pkg === undefined) {
      try {
        pkg = load() as TransactionalPackage;
      } catch {
        pkg = null;
      }
    }
    const TransactionHost = pkg?.TransactionHost;
    if (typeof TransactionHost?.getInstance !== 'function') return undefined;
    try {
      // a static that reads `this`: called on its class, never detached
      const host = TransactionHost.getInstance();
      return host.isTransactionActive() ? host.tx : undefined;
    } catch {
      // no ClsPluginTransactional registered, or no CLS context here: no transaction to join
      return undefined;
    }
  };
}
