import type { ReactElement } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ConfirmPage } from './ConfirmPage';

/**
 * The confirm page on its own: a query client of its own, and none of the console (its client, its stored session,
 * its refresh timer), so opening a mail's link makes no request at all until the visitor clicks.
 */
export function startConfirmPage(): ReactElement {
  return (
    <QueryClientProvider client={new QueryClient()}>
      <ConfirmPage />
    </QueryClientProvider>
  );
}
