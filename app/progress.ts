// Progress of a long CLI command, on stderr so that stdout keeps only the result: a bar with counts and an estimate
// in a terminal (cli-progress), a plain line now and then when stderr is not a terminal, JSON lines with --json.
import cliProgress from 'cli-progress';

export type ProgressMode = 'bar' | 'lines' | 'json';

export const progressMode = (json: boolean | undefined): ProgressMode => (json ? 'json' : process.stderr.isTTY ? 'bar' : 'lines');

const seconds = (ms: number) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s` : `${Math.max(1, Math.round(ms / 1000))}s`);

export class Progress {
  private bar: cliProgress.SingleBar | undefined;
  private total = 0;
  private started = 0;
  private lastLine = 0;

  constructor(
    private readonly mode: ProgressMode,
    private readonly phase: string,
    private readonly unit: string,
  ) {}

  start(total: number) {
    this.total = total;
    this.started = Date.now();
    if (this.mode === 'bar') {
      this.bar = new cliProgress.SingleBar(
        { format: `${this.phase} [{bar}] {value}/{total} ${this.unit} | {eta_formatted} left{detail}`, stream: process.stderr, hideCursor: true, etaBuffer: 20 },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(total, 0, { detail: '' });
    } else if (this.mode === 'json') this.emit(0);
    // Plain lines start with the first count, so a quick step prints one line.
    this.lastLine = Date.now();
  }

  /** `total` may grow (extraction learns how many chapters there are from its first answer). */
  update(done: number, detail = '', total = this.total) {
    if (total !== this.total) {
      this.total = total;
      this.bar?.setTotal(total);
    }
    if (this.bar) this.bar.update(done, { detail: detail ? ` | ${detail}` : '' });
    // Plain lines at most once a second (and the last one), so a log is not flooded.
    else if (done === this.total || Date.now() - this.lastLine >= 1000) this.emit(done, detail);
  }

  stop() {
    this.bar?.stop();
    this.bar = undefined;
  }

  /** A line about a step that has no count (importing, writing). */
  note(message: string) {
    if (this.mode === 'json') process.stderr.write(`${JSON.stringify({ progress: { phase: this.phase, message } })}\n`);
    else process.stderr.write(`${this.phase}: ${message}\n`);
  }

  private emit(done: number, detail = '') {
    this.lastLine = Date.now();
    const elapsed = Date.now() - this.started;
    const etaMs = done > 0 && done < this.total ? (elapsed / done) * (this.total - done) : undefined;
    if (this.mode === 'json') {
      process.stderr.write(`${JSON.stringify({ progress: { phase: this.phase, done, total: this.total, unit: this.unit, eta_seconds: etaMs === undefined ? null : Math.round(etaMs / 1000) } })}\n`);
      return;
    }
    process.stderr.write(`${this.phase}: ${done}/${this.total} ${this.unit}${etaMs === undefined ? '' : `, about ${seconds(etaMs)} left`}${detail ? ` (${detail})` : ''}\n`);
  }
}
