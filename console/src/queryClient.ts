import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isNetworkError } from '@basalt/client';
import { expireSession, onSignedOut } from './auth/session';
import { isUnauthorized } from './errors';
import { keys } from './queries';

/** Any 401 while signed in means the session is gone: back to sign-in rather than an error on every panel. */
function onError(error: unknown): void {
  if (isUnauthorized(error)) expireSession();
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a dropped connection might.
      retry: (failures, error) => isNetworkError(error) && failures < 1,
      staleTime: 10_000,
      refetchOnWindowFocus: false,
    },
  },
});

// Someone else may sign in next in this browser: nothing of this session's project data may show to them. The
// sign-in screen's own query stays (removing a query a mounted screen observes would leave it pending forever), but
// is refetched: the project may have gained its owner meanwhile.
onSignedOut(() => {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== keys.authSettings[0] });
  void queryClient.invalidateQueries({ queryKey: keys.authSettings });
});
