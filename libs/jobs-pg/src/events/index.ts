export { postgresEventBus, type PostgresEventBusOptions } from './pg-event-bus';
