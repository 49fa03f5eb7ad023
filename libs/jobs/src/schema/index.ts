export * from './t';
export * from './dto';
