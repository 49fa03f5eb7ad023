/**
 * The parts of TypeORM the outbox touches, written structurally: `typeorm` is an optional peer, and a public type
 * naming it would break the compile of every app that does not install it. A real `DataSource`, `QueryRunner` and
 * `EntityManager` satisfy these.
 */

/** The part of a TypeORM `QueryRunner` that `OutboxInterceptor` and `typeormExecutor` call. */
export interface OutboxQueryRunner {
  /** The transaction's `EntityManager`: what `currentEntityManager()` answers inside the request. */
  readonly manager: object;
  readonly isTransactionActive: boolean;
  connect(): Promise<unknown>;
  startTransaction(): Promise<void>;
  commitTransaction(): Promise<void>;
  rollbackTransaction(): Promise<void>;
  release(): Promise<void>;
  query(
    query: string,
    parameters: unknown[] | undefined,
    useStructuredResult: true,
  ): Promise<unknown>;
}

/** The part of a TypeORM `DataSource` the outbox uses: it opens query runners. */
export interface OutboxDataSource {
  createQueryRunner(): OutboxQueryRunner;
}

/**
 * What `currentEntityManager()` checks before answering: an object with a `queryRunner` and a `getRepository`.
 * TypeORM's `EntityManager` is one; name it as the type argument to get its full type back.
 */
export interface OutboxEntityManager {
  readonly queryRunner?: unknown;
  getRepository(target: never): unknown;
}
