import { useEffect } from 'react';

/**
 * Calls `reset` when the browser shows this page again out of its page cache: Back from a provider's page restores
 * the console as it was when it left, buttons still saying "Opening…".
 */
export function useBackFromProvider(reset: () => void): void {
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) reset();
    };
    window.addEventListener('pageshow', onShow);
    return () => window.removeEventListener('pageshow', onShow);
  }, [reset]);
}
