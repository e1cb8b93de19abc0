import { Component, Suspense, type ReactNode } from 'react';
import { ErrorState, Loading } from './States';

interface BoundaryState {
  error: unknown;
}

/** A failure inside the part (its code did not load, or it threw while rendering) stays in the part. */
class PartBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    // A chunk that failed to load is not asked for again by React: a reload fetches the current build's.
    return <ErrorState error={this.state.error} onRetry={() => window.location.reload()} />;
  }
}

/** A part of a screen whose code loads on demand (React.lazy): a spinner while it loads, an error in its place. */
export function LazyPart({ label, children }: { label: string; children: ReactNode }) {
  return (
    <PartBoundary>
      <Suspense fallback={<Loading label={label} />}>{children}</Suspense>
    </PartBoundary>
  );
}
