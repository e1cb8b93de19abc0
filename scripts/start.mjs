// `npm start`: builds first when the build is missing or older than the sources, then runs the service.
import { ensureBuilt } from './build-state.mjs';

ensureBuilt();
await import('../server/dist/main.js');
