import { quote } from './identifiers.js';

/**
 * Periodic housekeeping of Basalt's own tables (the count rows' fold, the change log's trim, the sweep of ended
 * sessions and limit windows): a run every interval, one at a time in the process (a call during a run shares it),
 * and a VACUUM of the tables once the runs deleted `vacuumAfterRows` rows. Deleted rows stay in a table and its
 * indexes until a VACUUM; autovacuum may be off (it is on some machines, these included) or minutes away, and a
 * table that is only appended to and trimmed then grows without end and gets slower to read. VACUUM never blocks
 * writers, and SKIP_LOCKED leaves a table to a process (or autovacuum) already at it. Subclasses say what one run
 * does and how many rows it deleted (`clean`).
 */
export abstract class Housekeeping {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Rows deleted since this process last vacuumed the tables. */
  private deadRows = 0;
  private readonly vacuum: string;

  constructor(
    tables: string | string[],
    private readonly vacuumAfterRows: number,
    private readonly execute: (sql: string) => Promise<unknown>,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.vacuum = `VACUUM (SKIP_LOCKED) ${[tables].flat().map(quote).join(', ')}`;
  }

  /** One run; answers how many rows of the tables it deleted. */
  protected abstract clean(): Promise<number>;

  /** One run now, and the VACUUM it calls for (tests and benchmarks call it to settle the tables). */
  run(): Promise<void> {
    this.running ??= this.cleanAndVacuum()
      .catch(this.onError)
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async cleanAndVacuum(): Promise<void> {
    this.deadRows += await this.clean();
    if (this.deadRows < this.vacuumAfterRows) return;
    this.deadRows = 0;
    await this.execute(this.vacuum);
  }

  start(intervalMs: number): void {
    this.timer ??= setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
