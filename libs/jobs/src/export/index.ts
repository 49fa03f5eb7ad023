export { exportRows, type ExportHandle } from './export-rows';
export type {
  ExportDefinition,
  ExportInput,
  ExportResult,
  ExportSourceArgs,
} from './export-definition';
export {
  DEFAULT_EXPORT_BATCH,
  DEFAULT_MAX_PART_BYTES,
  MAX_EXPORT_BATCH,
  MAX_EXPORT_COLUMNS,
  MAX_MAX_PART_BYTES,
} from './export-checks';
export { csvText, type ExportCell, type ExportRow } from './export-encode';
export {
  EXPORT_PART_DIGITS,
  exportManifestKey,
  exportPartKey,
  MAX_EXPORT_PARTS,
  type ExportFormat,
  type ExportManifest,
} from './export-keys';
export type {
  ExportSink,
  ExportSinkRemoveOptions,
  ExportSinkSource,
  ExportSinkWriteOptions,
} from './export-sink';
export { filesystemExportSink, type FilesystemExportSinkOptions } from './filesystem-sink';
export {
  s3ExportSink,
  S3_SINK_PEERS,
  type S3ClientLike,
  type S3ExportSinkOptions,
} from './s3-sink';
export { ExportSource, type ExportSourceMethod } from './export-source.decorator';
