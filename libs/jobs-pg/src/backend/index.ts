export {
  postgresBackend,
  type PostgresBackend,
  type PostgresBackendDriver,
  type PostgresBackendOptions,
  type PostgresBackendSource,
} from './pg-backend';
