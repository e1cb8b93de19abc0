import type { Policy, TableInfo } from '@basalt/client';

export function PolicyBadge({ policy }: { policy: Policy }) {
  return <span className={`badge badge-${policy}`}>{policy}</span>;
}

/** The policy, and what the API actually enforces when that differs (owner-scoped without an owner column). */
export function TablePolicy({ table }: { table: Pick<TableInfo, 'policy' | 'effectivePolicy'> }) {
  if (table.policy === table.effectivePolicy) return <PolicyBadge policy={table.policy} />;
  return (
    <span className="policy-pair">
      <PolicyBadge policy={table.policy} />
      <span className="muted" title="The table has no user_id or userId column, so it cannot be scoped to owners">
        acts as <PolicyBadge policy={table.effectivePolicy} />
      </span>
    </span>
  );
}
