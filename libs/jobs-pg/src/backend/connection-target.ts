import { userInfo } from 'node:os';
import { DatabaseUnreachableError, type DatabaseTarget } from '@ultimat3/jobs';

const PROTOCOLS = new Set(['postgres:', 'postgresql:']);

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}

/**
 * Where `url` connects, as libpq and `pg` read it — host, port, database and user from the URL, else from the `PG*`
 * variables, else the defaults — for error messages. A string that is not a `postgres://` URL is
 * `DatabaseUnreachableError` (`url`), which never repeats the string: it may hold a password.
 */
export function connectionTarget(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): DatabaseTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseUnreachableError('url', undefined, { detail: 'it does not parse as a URL' });
  }
  if (!PROTOCOLS.has(parsed.protocol)) {
    throw new DatabaseUnreachableError('url', undefined, {
      detail: `its scheme is ${parsed.protocol.slice(0, 20)} where postgres: or postgresql: was expected`,
    });
  }
  const param = (name: string): string | undefined => parsed.searchParams.get(name) ?? undefined;
  const decoded = (value: string): string => {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  };
  const port = Number(parsed.port || param('port') || env['PGPORT'] || 5432);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new DatabaseUnreachableError('url', undefined, {
      detail: 'its port is not a port number',
    });
  }
  const user = decoded(parsed.username) || param('user') || env['PGUSER'] || osUser();
  return {
    host: decoded(parsed.hostname) || param('host') || env['PGHOST'] || 'localhost',
    port,
    database: decoded(parsed.pathname.slice(1)) || param('dbname') || env['PGDATABASE'] || user,
    user,
  };
}

/** Where a TypeORM DataSource connects, read from its options, when they say (for error messages). */
export function dataSourceTarget(dataSource: object): DatabaseTarget | undefined {
  const options = (dataSource as { options?: Record<string, unknown> }).options;
  if (options === undefined) return undefined;
  if (typeof options['url'] === 'string' && options['url'] !== '') {
    try {
      return connectionTarget(options['url']);
    } catch {
      return undefined;
    }
  }
  const host = typeof options['host'] === 'string' ? options['host'] : 'localhost';
  const port = typeof options['port'] === 'number' ? options['port'] : 5432;
  const database = typeof options['database'] === 'string' ? options['database'] : '?';
  const user = typeof options['username'] === 'string' ? options['username'] : undefined;
  return user === undefined ? { host, port, database } : { host, port, database, user };
}
