/**
 * The API the console talks to, fixed at build time (VITE_API_URL) so a console hosted elsewhere still reaches its
 * project; unset, the origin the console was loaded from. A module of its own: the confirm page reads it without
 * constructing the console's client (and so without touching a stored session).
 */
export const API_URL = (import.meta.env.VITE_API_URL?.trim() || window.location.origin).replace(/\/+$/, '');
