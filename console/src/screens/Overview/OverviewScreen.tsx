import { lazy, useMemo, type ReactNode } from 'react';
import type { Overview } from '@basalt/contract';
import { LazyPart } from '../../components/LazyPart';
import { ListState } from '../../components/ListState';
import { FormError } from '../../components/States';
import { describeError } from '../../errors';
import { useOverview } from '../../queries';
import { chartsOf, formatCount, formatMs, formatRate, formatShare, replicasOf, summaryOf, type ChartData } from './stats';
import './overview.css';

const TimeChart = lazy(() => import('./TimeChart'));

// Module constants: the chart is rebuilt when these change, and must not be on every refresh.
const ACCENT = ['#3450a1'];
const ERRORS = ['#c77c02', '#b42318'];
const SIGN_INS = ['#1e7a46', '#b42318'];
/** The error-rate chart plots percentages (0-100), one decimal. */
const percent = (value: number) => `${Math.round(value * 10) / 10}%`;

const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** The owner's dashboard: the last hour of the whole process group's traffic, refreshed every 10 s while open. */
export function OverviewScreen() {
  const overview = useOverview();

  return (
    <section className="page">
      <div className="page-header">
        <h1>Overview</h1>
        {overview.data && (
          <p className="muted overview-updated">
            Updated {time.format(overview.dataUpdatedAt)}
          </p>
        )}
      </div>
      {/* A refresh that fails leaves the last numbers up, with a line that says so. */}
      <ListState query={overview} pendingLabel="Loading the overview…" errorPlacement="keep-data">
        {(data) => <Numbers data={data} updatedAt={overview.dataUpdatedAt} refreshError={overview.isError ? overview.error : undefined} />}
      </ListState>
    </section>
  );
}

function Numbers({ data, updatedAt, refreshError }: { data: Overview; updatedAt: number; refreshError: unknown }) {
  const charts = useMemo(() => chartsOf(data), [data]);
  const summary = useMemo(() => summaryOf(data), [data]);
  const replicas = useMemo(() => replicasOf(data), [data]);
  return (
    <>
      <p className="muted page-intro">
        The last hour in {data.bucketSeconds}-second steps
        {data.workers > 1 ? `, summed over ${data.workers} worker processes` : ''}; refreshed every{' '}
        {data.bucketSeconds} seconds while this page is open. &ldquo;Last {data.bucketSeconds} s&rdquo; is the last
        step that has ended.
      </p>
      {refreshError !== undefined && (
        <FormError message={`Could not refresh: ${describeError(refreshError)} Showing the numbers from ${time.format(updatedAt)}.`} />
      )}
      <div className="overview-grid">
        <ChartCard id="requests" title="Requests per second" data={charts.requests} colors={ACCENT} format={formatRate}>
          <Stat label={`Last ${data.bucketSeconds} s`} value={formatRate(summary.requests.lastPerSecond)} />
          <Stat label="Peak" value={formatRate(summary.requests.peakPerSecond)} />
          <Stat label="Requests in the hour" value={formatCount(summary.requests.total)} testId="requests-total" />
        </ChartCard>
        <ChartCard id="errors" title="Error rate" data={charts.errors} colors={ERRORS} format={percent}>
          <Stat label="4xx in the hour" value={`${formatShare(summary.errors.clientShare)} (${formatCount(summary.errors.client)})`} testId="client-errors" />
          <Stat label="5xx in the hour" value={`${formatShare(summary.errors.serverShare)} (${formatCount(summary.errors.server)})`} testId="server-errors" />
        </ChartCard>
        <ChartCard id="latency" title="p99 latency" data={charts.latency} colors={ACCENT} format={formatMs} minMax={10}>
          <Stat label={`Last ${data.bucketSeconds} s`} value={formatMs(summary.latency.lastMs)} />
          <Stat label="Highest in the hour" value={formatMs(summary.latency.highestMs)} testId="latency-highest" />
        </ChartCard>
        <ChartCard id="sign-ins" title="Sign-ins" data={charts.signIns} colors={SIGN_INS} format={formatCount}>
          <Stat label="Succeeded in the hour" value={formatCount(summary.signIns.ok)} testId="sign-ins-ok" />
          <Stat label="Failed in the hour" value={formatCount(summary.signIns.failed)} testId="sign-ins-failed" />
        </ChartCard>
        {replicas && <ReplicasCard replicas={replicas} />}
      </div>
    </>
  );
}

interface ChartCardProps {
  id: string;
  title: string;
  data: ChartData;
  colors: string[];
  format: (value: number) => string;
  minMax?: number;
  /** The numbers in words: what a screen reader reads, and what the chart shows at a glance. */
  children: ReactNode;
}

function ChartCard({ id, title, data, colors, format, minMax, children }: ChartCardProps) {
  const titleId = `${id}-title`;
  return (
    <section className="card chart-card" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <dl className="chart-summary" aria-label={`${title}: summary`}>
        {children}
      </dl>
      {/* The canvas repeats the summary as a picture (hidden from screen readers in TimeChart); a chart that cannot
          load says so, to everyone. */}
      <div className="chart-frame">
        <LazyPart label="Loading the chart…">
          <TimeChart data={data} colors={colors} format={format} minMax={minMax} />
        </LazyPart>
      </div>
    </section>
  );
}

/** Read replicas (DATABASE_REPLICA_URLS): whether record reads go to each standby, how far behind it is, what it served. */
function ReplicasCard({ replicas }: { replicas: NonNullable<ReturnType<typeof replicasOf>> }) {
  return (
    <section className="card" aria-labelledby="replicas-title">
      <h2 id="replicas-title">Read replicas</h2>
      <table className="replicas-table">
        <thead>
          <tr>
            <th scope="col">Standby</th>
            <th scope="col">Reads go there</th>
            <th scope="col">Lag</th>
            <th scope="col">Reads served</th>
          </tr>
        </thead>
        <tbody>
          {replicas.rows.map((row) => (
            <tr key={row.name} data-testid="standby">
              <th scope="row">{row.name}</th>
              <td className={row.state === 'skipped' ? 'replica-skipped' : undefined}>{row.state}</td>
              <td>{row.lag}</td>
              <td>{row.reads}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Reads the primary answered because no standby had replayed what they must see in time: <strong data-testid="primary-fallbacks">{replicas.primaryFallbacks}</strong>. A skipped standby does not answer or is further behind than REPLICA_MAX_LAG_MS.
      </p>
    </section>
  );
}

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}
