// `npm run typegen -- --out <file>`: writes the generated Database type, reading the schema from the database.
import { ensureBuilt } from './build-state.mjs';

ensureBuilt();
await import('../server/dist/cli/typegen.js');
