import { createClient } from '@basalt/client';
import { API_URL } from './apiUrl';

export { API_URL };

/** The one client the console talks through. The console signs in as the owner, so it needs no anon key. */
export const client = createClient(API_URL, undefined, {
  // A key of its own: an app served from the same origin keeps its own session beside the console's.
  storageKey: `basalt.console.${new URL(API_URL).host}`,
});
