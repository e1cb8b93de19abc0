export * from './errors.js';
export * from './schema.js';
export * from './api.js';
export * from './values.js';
export * from './names.js';
export * from './accounts.js';
export * from './operations.js';
export * from './cors.js';
