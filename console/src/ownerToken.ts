import { ApiError } from '@basalt/client';
import { client } from './api';

/**
 * The signed-in owner's access token (refreshed first when it is due), for the console's own requests that the client
 * library does not make: file bytes, CSV pages. No session is the 401 the client would answer.
 */
export async function ownerAccessToken(): Promise<string> {
  const session = await client.auth.getSession();
  if (!session) throw new ApiError(401, 'UNAUTHORIZED', 'The session has ended: sign in again.');
  return session.accessToken;
}
