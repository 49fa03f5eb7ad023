export { DtoSchema, dtoSchema, isDtoClass, type DtoSchemaOptions } from './dto-schema';
export type { DtoClass, DtoInput } from './dto-types';
