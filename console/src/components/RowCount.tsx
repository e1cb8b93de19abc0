import type { RowCount } from '@basalt/contract';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const exact = new Intl.NumberFormat('en');

export function RowCountText({ count }: { count: RowCount }) {
  if (count.exact) return <>{exact.format(count.value)}</>;
  return <span title="The planner's estimate: exact counts stop at 100,000 rows so this list stays fast">≈ {compact.format(count.value)}</span>;
}
