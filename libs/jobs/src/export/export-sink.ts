/** What a sink is told beside the bytes of one object. */
export interface ExportSinkWriteOptions {
  /** `text/csv; charset=utf-8`, `application/x-ndjson` or `application/json` (the manifest). */
  readonly contentType: string;
  /** The page's signal (the run's cancellation, drain and deadline): hand it to the upload. */
  readonly signal: AbortSignal;
}

/** What a sink is told when an object is to go. */
export interface ExportSinkRemoveOptions {
  /** The manifest step's signal (the run's cancellation, drain and deadline). */
  readonly signal: AbortSignal;
}

/**
 * Where an export's objects go: a seam, so this package holds no storage dependency. `filesystemExportSink` and
 * `s3ExportSink` ship with it; an app's own store is one method (two with the optional `remove`).
 *
 * `write` stores `body` as the WHOLE object at `key`, replacing what is there (a page run twice rewrites its part),
 * and resolves once the object can be read back whole. A write that fails or is aborted must leave the previous
 * object or none — never a prefix of this one — since the next attempt rewrites the key and `cat part-*` must stay a
 * valid file.
 */
export interface ExportSink {
  /** Stores `body` as the whole object at `key`, replacing what is there. */
  write(key: string, body: Uint8Array, options: ExportSinkWriteOptions): Promise<void>;
  /**
   * Removes the object at `key` when there is one, answering whether there was (optional). An export calls it before
   * its manifest for the parts past its own count — those an earlier, larger export under the same prefix left —
   * from the first past the count until one is absent, so `cat part-*` holds this export's rows alone. A sink without
   * it leaves them (the manifest's `parts` still counts this export's).
   */
  remove?(key: string, options: ExportSinkRemoveOptions): Promise<boolean>;
}

/** A sink, or a thunk answering one — read per write, so a sink configured after import (a DI container) is seen. */
export type ExportSinkSource = ExportSink | (() => ExportSink);
