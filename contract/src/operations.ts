/**
 * Operations (API.md, "Operations: description, metrics, readiness"): readiness, and the owner's overview of the
 * process group's recent traffic, which the console charts. The Prometheus text (`GET /metrics`) and the OpenAPI
 * document (`GET /openapi.json`) answer outside the envelope and have no type here.
 */

/** `GET /ready` when the service can serve (migrations ran, schema loaded, database answering). */
export interface ReadyStatus {
  status: 'ready';
  /** With DATABASE_REPLICA_URLS: standbys configured, and how many reads may go to now (up, not too far behind). */
  replicas?: { configured: number; inUse: number };
}

/** Seconds covered by one point of the overview. */
export const OVERVIEW_BUCKET_SECONDS = 10;
/** How far back the overview reaches, in seconds (one hour). */
export const OVERVIEW_WINDOW_SECONDS = 3600;

/** One bucket of `OVERVIEW_BUCKET_SECONDS`, summed over every worker of the process group. */
export interface OverviewPoint {
  /** Start of the bucket (ISO 8601, UTC, milliseconds). */
  at: string;
  /** Responses finished in the bucket (every route, the fast read path included). */
  requests: number;
  /** Of those, with a 4xx status. */
  clientErrors: number;
  /** Of those, with a 5xx status. */
  serverErrors: number;
  /** 99th percentile response time in milliseconds (upper bound of its histogram bucket); null without requests. */
  p99Ms: number | null;
  /** Successful sign-ins (`POST /auth/signin` answered 200). */
  signIns: number;
  /** Refused sign-ins (401 or 429). */
  signInFailures: number;
}

/** One read replica as the overview shows it (DATABASE_REPLICA_URLS). */
export interface StandbyStatus {
  /** `host:port/database` of its URL, never its credentials. */
  name: string;
  /** Whether record reads may go to it now (every process agrees: answering, within REPLICA_MAX_LAG_MS). */
  inUse: boolean;
  /** How far it is behind the primary (the largest any process measured). */
  lagSeconds: number;
  /** Record reads it served since the processes started. */
  reads: number;
}

/** `GET /admin/overview` (owner only): the last hour, oldest point first, empty buckets included as zeros. */
export interface Overview {
  bucketSeconds: number;
  /** Worker processes whose numbers are summed (1 unless WORKERS=N). */
  workers: number;
  points: OverviewPoint[];
  /** With read replicas only: each standby, and the record reads the primary served because none could. */
  replicas?: { standbys: StandbyStatus[]; primaryFallbacks: number };
}
