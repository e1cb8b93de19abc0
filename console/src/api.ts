import { createClient } from '@basalt/client';

/**
 * The one client the console talks through. The console signs in as the owner, so it needs no anon key; the API URL
 * is fixed at build time (VITE_API_URL) so a console hosted elsewhere still reaches its project.
 */
export const API_URL = (import.meta.env.VITE_API_URL?.trim() || window.location.origin).replace(/\/+$/, '');

export const client = createClient(API_URL, undefined, {
  // A key of its own: an app served from the same origin keeps its own session beside the console's.
  storageKey: `basalt.console.${new URL(API_URL).host}`,
});
