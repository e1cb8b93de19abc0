import { useMutation } from '@tanstack/react-query';
import type { AuthSettings } from '@basalt/contract';
import { FormError } from '../components/States';
import { describeError } from '../errors';
import { signInWithProvider } from './session';
import { useBackFromProvider } from './useBackFromProvider';

/** "Continue with …" for each identity provider the project configures (auth.providers of config.json). */
export function ProviderButtons({ providers }: { providers: AuthSettings['providers'] }) {
  const leave = useMutation({ mutationFn: (name: string) => signInWithProvider(name) });
  useBackFromProvider(leave.reset);
  if (providers.length === 0) return null;
  return (
    <div className="auth-providers">
      <p className="auth-divider">or</p>
      {providers.map((provider) => (
        <button
          key={provider.name}
          type="button"
          className="button button-block"
          // The browser is leaving for the provider: a second click would only start a second round trip.
          disabled={leave.isPending || leave.isSuccess}
          onClick={() => leave.mutate(provider.name)}
        >
          {leave.variables === provider.name && (leave.isPending || leave.isSuccess) ? `Opening ${provider.displayName}…` : `Continue with ${provider.displayName}`}
        </button>
      ))}
      <FormError message={leave.isError ? describeError(leave.error) : undefined} />
    </div>
  );
}
