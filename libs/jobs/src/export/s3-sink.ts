import { OptionalPeerMissingError } from '../errors/declaration-errors';
import type { ExportSink } from './export-sink';

/** The packages the S3 sink needs, in the order the fix installs them. */
export const S3_SINK_PEERS: readonly string[] = ['@aws-sdk/client-s3', '@aws-sdk/lib-storage'];

/** The part of an AWS SDK v3 `S3Client` this package names (structural: its types are an optional peer's). */
export interface S3ClientLike {
  /** Sends one command, as `S3Client.send` does. */
  send(command: never, options?: never): Promise<unknown>;
}

/** Options of {@link s3ExportSink}. */
export interface S3ExportSinkOptions {
  /** The bucket the objects are written to. */
  readonly bucket: string;
  /**
   * An `S3Client` of the app's (its region, credentials, endpoint) — or the config one is built from
   * (`{ region, endpoint, forcePathStyle, credentials }`) on first write.
   */
  readonly client: S3ClientLike | Readonly<Record<string, unknown>>;
  /** Bytes per uploaded part (default and minimum 5 MiB): a part past it goes as a multipart upload. */
  readonly partSize?: number;
  /** Parts uploaded at once (default 4); the upload holds at most `queueSize × partSize` bytes more. */
  readonly queueSize?: number;
}

interface S3Peers {
  readonly S3Client: new (config: Readonly<Record<string, unknown>>) => S3ClientLike;
  readonly Upload: new (options: {
    client: S3ClientLike;
    params: { Bucket: string; Key: string; Body: Uint8Array; ContentType: string };
    partSize?: number;
    queueSize?: number;
    leavePartsOnError: boolean;
    abortController: AbortController;
  }) => { done(): Promise<unknown> };
}

/**
 * Loads the AWS SDK v3 the first time an S3 sink writes, never at import: both packages are optional peers, and an app
 * that exports to its own sink loads `@ultimat3/jobs` without them (`X_PEER_MISSING` names them otherwise).
 */
function loadS3Peers(): S3Peers {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const { S3Client } = require('@aws-sdk/client-s3') as Pick<S3Peers, 'S3Client'>;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const { Upload } = require('@aws-sdk/lib-storage') as Pick<S3Peers, 'Upload'>;
    if (typeof S3Client !== 'function' || typeof Upload !== 'function') {
      throw new TypeError('S3Client or Upload is not a constructor');
    }
    return { S3Client, Upload };
  } catch (cause) {
    throw new OptionalPeerMissingError('The S3 export sink', S3_SINK_PEERS, cause);
  }
}

const isClient = (client: S3ExportSinkOptions['client']): client is S3ClientLike =>
  typeof (client as Partial<S3ClientLike>).send === 'function';

/**
 * An {@link ExportSink} over an S3-compatible bucket (AWS S3, MinIO, R2, …) through the AWS SDK v3: each object is one
 * `Upload` from `@aws-sdk/lib-storage` — a single PUT under `partSize`, a multipart upload above it, aborted (its
 * parts removed) when it fails or the page's signal aborts. S3 makes an object visible only once complete, so a
 * killed write leaves the previous part or none.
 */
export function s3ExportSink(options: S3ExportSinkOptions): ExportSink {
  let client: S3ClientLike | undefined = isClient(options.client) ? options.client : undefined;
  return {
    async write(key, body, { contentType, signal }) {
      const peers = loadS3Peers();
      client ??= new peers.S3Client(options.client as Readonly<Record<string, unknown>>);
      signal.throwIfAborted();
      const abortController = new AbortController();
      const onAbort = (): void => abortController.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        await new peers.Upload({
          client,
          params: { Bucket: options.bucket, Key: key, Body: body, ContentType: contentType },
          ...(options.partSize === undefined ? {} : { partSize: options.partSize }),
          ...(options.queueSize === undefined ? {} : { queueSize: options.queueSize }),
          leavePartsOnError: false,
          abortController,
        }).done();
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
