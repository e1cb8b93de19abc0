export * from './errors.js';
export * from './schema.js';
export * from './api.js';
