import { OptionalPeerMissingError } from '../errors/declaration-errors';
import { InvariantError } from '../errors/runtime-errors';
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

/** S3's smallest part of a multipart upload (every part but the last), and so the smallest `partSize`. */
const MIN_S3_PART_SIZE = 5 * 1024 * 1024;

/** S3's largest part of a multipart upload, and so the largest `partSize`. */
const MAX_S3_PART_SIZE = 5 * 1024 * 1024 * 1024;

/**
 * The options checked where they are written: the SDK's `Upload` refuses a `partSize` under 5 MiB only when a page is
 * written (an uncoded `EntityTooSmall` on every attempt until the export dead-letters), and takes 0, or a `queueSize`
 * of 0, for its default in silence.
 */
function checkedOptions(options: S3ExportSinkOptions): void {
  if (typeof options.bucket !== 'string' || options.bucket.length === 0) {
    throw new InvariantError(
      `s3ExportSink: bucket must be a non-empty string (got ${String(options.bucket)}).`,
    );
  }
  if (typeof options.client !== 'object' || options.client === null) {
    throw new InvariantError(
      's3ExportSink: client must be an S3Client, or the config one is built from.',
    );
  }
  const whole = (field: string, value: number | undefined, min: number, max: number): void => {
    if (value === undefined) return;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvariantError(
        `s3ExportSink: ${field} must be a whole number from ${min} to ${max} (got ${String(value)}).`,
        `Leave ${field} out for the default, or pass one in that range.`,
      );
    }
  };
  whole('partSize', options.partSize, MIN_S3_PART_SIZE, MAX_S3_PART_SIZE);
  whole('queueSize', options.queueSize, 1, 10_000);
}

/** An S3 command of one object: `HeadObjectCommand`, `DeleteObjectCommand`. */
type ObjectCommand = new (input: { Bucket: string; Key: string }) => unknown;
/** The object commands the sink sends itself (`Upload` sends the rest). */
type ObjectCommandName = 'HeadObjectCommand' | 'DeleteObjectCommand';

interface S3Peers {
  readonly S3Client: new (config: Readonly<Record<string, unknown>>) => S3ClientLike;
  readonly HeadObjectCommand: ObjectCommand;
  readonly DeleteObjectCommand: ObjectCommand;
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
    const client = require('@aws-sdk/client-s3') as Pick<S3Peers, 'S3Client' | ObjectCommandName>;
    const { S3Client, HeadObjectCommand, DeleteObjectCommand } = client;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when used
    const { Upload } = require('@aws-sdk/lib-storage') as Pick<S3Peers, 'Upload'>;
    for (const made of [S3Client, HeadObjectCommand, DeleteObjectCommand, Upload]) {
      if (typeof made !== 'function') throw new TypeError('an AWS SDK export is not a constructor');
    }
    return { S3Client, HeadObjectCommand, DeleteObjectCommand, Upload };
  } catch (cause) {
    throw new OptionalPeerMissingError('The S3 export sink', S3_SINK_PEERS, cause);
  }
}

const isClient = (client: S3ExportSinkOptions['client']): client is S3ClientLike =>
  typeof (client as Partial<S3ClientLike>).send === 'function';

/** Whether `error` is S3's answer that the object is not there (`HeadObject` answers 404 with no body: `NotFound`). */
function isNotFound(error: unknown): boolean {
  const e = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * An {@link ExportSink} over an S3-compatible bucket (AWS S3, MinIO, R2, …) through the AWS SDK v3: each object is one
 * `Upload` from `@aws-sdk/lib-storage` — a single PUT under `partSize`, a multipart upload above it, aborted (its
 * parts removed) when it fails or the page's signal aborts. S3 makes an object visible only once complete, so a
 * killed write leaves the previous part or none. `remove` is a `HeadObject` (false on 404), then a `DeleteObject`.
 * An empty `bucket`, a missing `client`, a `partSize` outside 5 MiB – 5 GiB or a `queueSize` under 1 is refused here (`X_INVARIANT`).
 */
export function s3ExportSink(options: S3ExportSinkOptions): ExportSink {
  checkedOptions(options);
  let client: S3ClientLike | undefined = isClient(options.client) ? options.client : undefined;
  const connect = (peers: S3Peers): S3ClientLike =>
    (client ??= new peers.S3Client(options.client as Readonly<Record<string, unknown>>));
  return {
    async write(key, body, { contentType, signal }) {
      const peers = loadS3Peers();
      const client = connect(peers);
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
    async remove(key, { signal }) {
      const peers = loadS3Peers();
      const client = connect(peers);
      const send = (Command: ObjectCommand): Promise<unknown> =>
        client.send(
          new Command({ Bucket: options.bucket, Key: key }) as never,
          {
            abortSignal: signal,
          } as never,
        );
      signal.throwIfAborted();
      try {
        await send(peers.HeadObjectCommand);
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
      await send(peers.DeleteObjectCommand);
      return true;
    },
  };
}
