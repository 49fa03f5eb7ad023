export { postgresEventBus, type PostgresEventBusOptions } from './pg-event-bus';
export { SQL_EVENT_PUBLISH } from './sql/event-publish.sql';
export { SQL_EVENTS_FIND } from './sql/events-find.sql';
export { SQL_EVENTS_FIND_TENANT } from './sql/events-find-tenant.sql';
export { SQL_EVENTS_NOW } from './sql/events-now.sql';
export { SQL_EVENTS_PURGE } from './sql/events-purge.sql';
export { SQL_EVENTS_RESET } from './sql/events-reset.sql';
