import type { ReactElement } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { restoreSession } from './auth/session';
import { queryClient } from './queryClient';

/** The console: reads (and if due refreshes) the stored session, then shows sign-in or the screens. */
export function startConsole(): ReactElement {
  void restoreSession();
  return (
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  );
}
