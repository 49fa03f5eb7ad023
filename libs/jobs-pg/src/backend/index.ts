export {
  postgresBackend,
  postgresBackendOver,
  POSTGRES_CAPABILITIES,
  type PostgresBackend,
  type PostgresBackendDriver,
  type PostgresBackendOptions,
  type PostgresBackendSource,
} from './pg-backend';
export type { PoolShape } from './pool-options';
