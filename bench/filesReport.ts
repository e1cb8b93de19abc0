import { fmt, table } from './format.js';
import { F2_PLAN, MiB, RSS_GROWTH_LIMIT_MIB } from './fileTransfers.js';
import { F1_BYTES, F1_FILES, PHOTO, VARIANT_QUERY } from './scenarios.js';
import { BASALTS, F1, F2, F3, median, pairedRatio, RPS, SERVER_LABELS, SERVERS, summarize, type BenchMeta, type Pick, type RunRecord, type Transfer } from './stats.js';

/** Issue 28's part of the report (bench/files.ts and fileTransfers.ts measure it): its tables, and F2 on the terminal. */

export const TRANSFER_RATE: Pick = (r) => r.transfer!.mibPerS;

const transfers = (records: RunRecord[], server: string) => records.filter((r) => r.scenario === F2 && r.server === server && r.transfer && r.problems.length === 0).map((r) => r.transfer!);

/** The largest growth of one process's RSS over the valid F2 runs of a server (MiB), null when none. */
export function worstGrowth(records: RunRecord[], server: string, of: 'rssPeakGrowthMiB' | 'rssEndGrowthMiB' = 'rssPeakGrowthMiB'): number | null {
  const runs = transfers(records, server);
  return runs.length ? Math.max(...runs.map((t) => t[of])) : null;
}

function smallFilesTable(records: RunRecord[]): string {
  return table(
    ['Server', 'F1 req/s', 'F1 p50 / p99 ms', 'F1 / baseline (paired)', 'F3 req/s', 'F3 p50 / p99 ms', 'F3 / F1 (paired)', 'server CPU ms/req F1 / F3', 'Postgres CPU ms/req F1 / F3'],
    SERVERS.map((server) => {
      const [f1, f3] = [F1, F3].map((scenario) => summarize(records, 'main', scenario, server));
      const basalt = server !== 'baseline';
      return [
        SERVER_LABELS[server],
        fmt(f1?.rps, 0),
        `${fmt(f1?.p50, 2)} / ${fmt(f1?.p99, 2)}`,
        basalt ? fmt(pairedRatio(records, 'main', [F1, server], [F1, 'baseline'], RPS), 2) : '',
        basalt ? fmt(f3?.rps, 0) : '',
        basalt ? `${fmt(f3?.p50, 2)} / ${fmt(f3?.p99, 2)}` : '',
        basalt ? fmt(pairedRatio(records, 'main', [F3, server], [F1, server], RPS), 2) : '',
        `${fmt(f1?.cpuPerRequest, 3)}${basalt ? ` / ${fmt(f3?.cpuPerRequest, 3)}` : ''}`,
        `${fmt(f1?.dbCpuPerRequest, 3)}${basalt ? ` / ${fmt(f3?.dbCpuPerRequest, 3)}` : ''}`,
      ];
    }),
  );
}

function transfersTable(records: RunRecord[]): string {
  return table(
    ['Server', 'upload MiB/s', 'download MiB/s', 'both ways MiB/s', 'both / baseline (paired)', 'RSS before MiB (all processes)', 'largest RSS growth of a process, peak / end MiB (worst run)', 'server CPU s per GiB moved', 'valid runs'],
    SERVERS.map((server) => {
      const all = records.filter((r) => r.scenario === F2 && r.server === server);
      const valid = all.filter((r) => r.problems.length === 0 && r.transfer);
      const mid = (pick: (t: Transfer) => number) => (valid.length ? median(valid.map((r) => pick(r.transfer!))) : null);
      const cpu = valid.length ? median(valid.map((r) => r.serverCpuMs / 1000 / ((2 * r.transfer!.files * r.transfer!.bytesEach) / (1024 * MiB)))) : null;
      return [
        SERVER_LABELS[server],
        fmt(mid((t) => t.uploadMibPerS), 0),
        fmt(mid((t) => t.downloadMibPerS), 0),
        fmt(mid((t) => t.mibPerS), 0),
        server === 'baseline' ? '' : fmt(pairedRatio(records, 'main', [F2, server], [F2, 'baseline'], TRANSFER_RATE), 2),
        fmt(mid((t) => t.rssBeforeMiB), 0),
        `${fmt(worstGrowth(records, server), 1)} / ${fmt(worstGrowth(records, server, 'rssEndGrowthMiB'), 1)}`,
        fmt(cpu, 2),
        `${valid.length}/${all.length}`,
      ];
    }),
  );
}

/** The report's files section: F1 and F3, F2, the first transforms. */
export function filesSection(records: RunRecord[], meta: BenchMeta): string[] {
  if (!records.some((r) => r.scenario === F1 || r.scenario === F2 || r.scenario === F3)) return [];
  const files = meta.files;
  const plan = records.find((r) => r.transfer)?.transfer ?? { files: F2_PLAN.files, bytesEach: F2_PLAN.bytes };
  const ms = (list: number[] | undefined) => (list?.length ? list.map((value) => fmt(value, 0)).join(', ') : 'n/a');
  const transforms = BASALTS.map(
    (server) =>
      `${SERVER_LABELS[server]}: first ${ms(files?.firstTransformMs[server])} ms, cached ${files?.cachedMs[server]?.map((value) => fmt(value, 1)).join(', ') ?? 'n/a'} ms; largest RSS growth of a process meanwhile ${fmt(files?.transformRssGrowthMiB[server], 1)} MiB`,
  );
  return [
    '',
    '### Files (issue 28): F1, F3, F2',
    '',
    smallFilesTable(records),
    '',
    `F2: ${plan.files} uploads of ${fmt(plan.bytesEach / MiB, 0)} MiB at once, then their downloads at once, per server and round:`,
    '',
    transfersTable(records),
    '',
    `First transform (F3's variant made, request to last byte) of a ${PHOTO.width} x ${PHOTO.height} JPEG of ${fmt((files?.photo.bytes ?? 0) / MiB, 1)} MiB into a WebP of ` +
      `${files?.variant ? `${files.variant.width} x ${files.variant.height}, ${fmt(files.variant.bytes / 1024, 1)} KiB` : 'n/a'} (width=200 asked: Basalt rounds sides up to a multiple of 16), copies one after another, before the load:`,
    '',
    ...transforms.map((line) => `- ${line}`),
    '',
    `RSS is VmRSS of each server process (Basalt WORKERS=2: the primary and both workers), sampled every 50 ms from just before`,
    `the uploads to the last download's end; the target is on the largest growth of one process over the rounds (< ${RSS_GROWTH_LIMIT_MIB} MiB).`,
  ];
}

/** The scenario list's lines for F1-F3. */
export function fileScenarioLines(): string[] {
  return [
    `- F1 (issue 28) \`GET /files/public_files/:id\`, a random one of ${F1_FILES} files of ${F1_BYTES / 1024} KiB in a public-read bucket (local`,
    '  driver), as anon (the anon key; the baseline checks it too). The baseline: `SELECT name, type, size, sha256, "updatedAt"`',
    '  from its copy of the table, then the file streamed from its own folder with ETag, Content-Length and Content-Type.',
    `  F3 (Basalt only) \`GET /files/photos/:id?${VARIANT_QUERY}\`, a cached variant of a ${PHOTO.width} x ${PHOTO.height} JPEG (gradients and noise),`,
    `  against Basalt's own F1. F2 ${F2_PLAN.files} uploads of ${F2_PLAN.bytes / MiB} MiB at once (\`POST /files/transfers\`, a raw body, as the owner), then`,
    '  their downloads; the baseline pipes the bodies to files with a SHA-256 on the way, inserts a row, and streams them',
    '  back. Every file is deleted and the disk synced between F2 runs.',
  ];
}

/** One F2 run on the terminal. */
export function describeTransfer(r: RunRecord): string {
  const t = r.transfer!;
  const gib = (2 * t.files * t.bytesEach) / (1024 * MiB);
  return (
    `round ${r.round} ${r.scenario.padEnd(5)} ${r.server.padEnd(8)} ${fmt(t.mibPerS, 0).padStart(7)} MiB/s both ways (up ${fmt(t.uploadMibPerS, 0)} in ${fmt(t.uploadS, 1)} s, ` +
    `down ${fmt(t.downloadMibPerS, 0)} in ${fmt(t.downloadS, 1)} s)  RSS ${fmt(t.rssBeforeMiB, 0)} MiB in ${t.processes} process(es), largest growth peak ${fmt(t.rssPeakGrowthMiB, 1)} / end ${fmt(t.rssEndGrowthMiB, 1)} MiB  ` +
    `cpu ${fmt(r.serverCpuMs / 1000 / gib, 2)} s/GiB`
  );
}
