/**
 * The parts of TypeORM the outbox touches, written structurally: `typeorm` is an optional peer, and a public type
 * naming it would break the compile of every app that does not install it. A real `DataSource`, `QueryRunner` and
 * `EntityManager` satisfy these.
 */

/** The part of a TypeORM `QueryRunner` that `OutboxInterceptor` and `typeormExecutor` call. */
export interface OutboxQueryRunner {
  /** The transaction's `EntityManager`: what `currentEntityManager()` answers inside the request. */
  readonly manager: object;
  /** Whether a transaction is open on the runner (read before a rollback). */
  readonly isTransactionActive: boolean;
  /** Takes the runner's connection from the pool. */
  connect(): Promise<unknown>;
  /** Opens a transaction. */
  startTransaction(): Promise<void>;
  /** Commits the open transaction. */
  commitTransaction(): Promise<void>;
  /** Rolls back the open transaction. */
  rollbackTransaction(): Promise<void>;
  /** Gives the connection back to the pool. */
  release(): Promise<void>;
  /** Runs one statement with positional parameters, answering TypeORM's structured result (`useStructuredResult`). */
  query(
    query: string,
    parameters: unknown[] | undefined,
    useStructuredResult: true,
  ): Promise<unknown>;
}

/** The part of a TypeORM `DataSource` the outbox uses: it opens query runners. */
export interface OutboxDataSource {
  /** Opens a query runner: one pooled connection, released by its caller. */
  createQueryRunner(): OutboxQueryRunner;
}

/**
 * What `currentEntityManager()` checks before answering: an object with a `queryRunner` and a `getRepository`.
 * TypeORM's `EntityManager` is one; name it as the type argument to get its full type back.
 */
export interface OutboxEntityManager {
  /** The query runner the manager is bound to (a transaction's manager has one). */
  readonly queryRunner?: unknown;
  /** The repository of an entity, bound to this manager. */
  getRepository(target: never): unknown;
}
