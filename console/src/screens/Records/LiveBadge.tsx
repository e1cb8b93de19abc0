import type { LiveState } from './useLiveRecords';

/** Whether the grid follows the table live, and why not when it does not. */
export function LiveBadge({ live }: { live: LiveState }) {
  if (live.status === 'live') {
    return (
      <span className="live-badge" role="status" title="New, changed and deleted rows show up here as they happen">
        <span className="live-dot" aria-hidden="true" />
        Live
      </span>
    );
  }
  if (live.status === 'connecting') {
    return (
      <span className="live-badge live-stopped" role="status" title="Rows written by others show up here once the live stream is open">
        Connecting…
      </span>
    );
  }
  return (
    <span className="live-badge live-stopped" role="status" title={live.reason}>
      Live updates stopped
    </span>
  );
}
