// `npm run admin -- reset-link <email>`: owner tools from the command line, reading the database directly.
import { ensureBuilt } from './build-state.mjs';

ensureBuilt();
await import('../server/dist/cli/admin.js');
