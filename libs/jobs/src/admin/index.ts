export { JobsAdminModule } from './admin.module';
export { JobsAdminApi, type AdminSessionView } from './admin.controller';
export type { AdminBackfillsView, AdminDeclaredBackfillView } from './admin-backfills';
export { ADMIN_CSRF_HEADER } from './admin-csrf';
export { DEFAULT_ADMIN_PATH, DEFAULT_ADMIN_POLL_MS } from './admin-config';
export type {
  AdminRequest,
  JobsAdminOptions,
  JobsAdminRoute,
  JobsAdminRouteContext,
} from './admin.options';
