/**
 * The example apps' `DATABASE_URL`: what each `main.ts` sets (to the embedded PostgreSQL when it was unset) before
 * Nest builds the modules, read by their `forRootAsync` factories. Unset is an error naming the fix, never a silent
 * default.
 */
export function exampleDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env['DATABASE_URL'];
  if (url === undefined || url === '') {
    throw new Error(
      'DATABASE_URL is not set. Start the app through its main.ts (it points DATABASE_URL at the embedded PostgreSQL), or set DATABASE_URL to a database of yours.',
    );
  }
  return url;
}
