import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InvariantError } from '../errors/runtime-errors';
import type { ExportSink } from './export-sink';

/** Options of {@link filesystemExportSink}. */
export interface FilesystemExportSinkOptions {
  /** The directory keys are written under (created as needed). */
  readonly root: string;
  /** Flush each object to disk before it is renamed into place (default true): a part survives a power cut. */
  readonly fsync?: boolean;
}

/** The absolute path of `key` under `root`, refusing a key that would leave it. */
function pathOf(root: string, key: string): string {
  const path = resolve(root, key);
  const inside = relative(root, path);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new InvariantError(`filesystem export sink: key "${key}" is outside its root.`);
  }
  return path;
}

/**
 * An {@link ExportSink} over a directory: `key` is a path under `root`. Each object is written to a hidden temporary
 * file beside its key and renamed over it, so a reader (or `cat part-*`) sees the previous part or the whole new one —
 * never a prefix a killed write left behind. `remove` unlinks a key's file (false when there is none).
 */
export function filesystemExportSink(options: FilesystemExportSinkOptions): ExportSink {
  const root = resolve(options.root);
  const fsync = options.fsync ?? true;
  return {
    async write(key, body, { signal }) {
      const path = pathOf(root, key);
      await mkdir(dirname(path), { recursive: true });
      // a dot file: a write killed mid-way leaves nothing `part-*` globs
      const temporary = join(
        dirname(path),
        `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`,
      );
      try {
        signal.throwIfAborted();
        const file = await open(temporary, 'w');
        try {
          await file.writeFile(body);
          if (fsync) await file.sync();
        } finally {
          await file.close();
        }
        signal.throwIfAborted();
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async remove(key, { signal }) {
      const path = pathOf(root, key);
      signal.throwIfAborted();
      try {
        await unlink(path);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    },
  };
}
