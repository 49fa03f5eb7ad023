/**
 * The app's TypeORM `DataSource`, as `OutboxInterceptor` injects it. `OutboxModule.forRoot({ dataSource })` binds it
 * to the token the app names — `getDataSourceToken()` from `@nestjs/typeorm` — so this package never loads TypeORM.
 */
export const OUTBOX_DATA_SOURCE = '@ultimat3/jobs:outbox:data-source';

/** The checked options of `OutboxModule.forRoot()`. */
export const OUTBOX_MODULE_OPTIONS = '@ultimat3/jobs:outbox:options';
