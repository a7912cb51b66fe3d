/**
 * How the parse pool's threads are shared between the runs that use them (a job's check run, a
 * dashboard render): each run waits in a line of its own, and a thread that comes free goes to the
 * next file of the run served least recently. A run that queued many slow files then delays
 * another's next file by at most one file per other run, never by all of its own.
 *
 * The pool (piscina) is handed no more files than it has threads, so its own queue stays empty: it
 * serves first come, first served, and a task with an abort signal (all of ours) bypasses a custom
 * `taskQueue` when no thread is free.
 */
export class FairShare {
  /** The runs waiting, each with its waiters in order; a Map keeps the runs in the order served. */
  private readonly lines = new Map<object, Array<() => void>>();
  private busy = 0;

  constructor(private readonly slots: number) {}

  /**
   * Waits for a free thread for `run`; the answer is the function that gives it back, or null when
   * `signal` aborted first (nothing to give back then).
   */
  take(run: object, signal: AbortSignal): Promise<(() => void) | null> {
    if (signal.aborted) return Promise.resolve(null);
    if (this.busy < this.slots && this.lines.size === 0) {
      this.busy++;
      return Promise.resolve(this.giver());
    }
    return new Promise((resolve) => {
      const line = this.lines.get(run) ?? [];
      const waiter = () => {
        signal.removeEventListener('abort', leave);
        resolve(this.giver());
      };
      const leave = () => {
        const at = line.indexOf(waiter);
        if (at >= 0) line.splice(at, 1);
        if (line.length === 0 && this.lines.get(run) === line) this.lines.delete(run);
        resolve(null);
      };
      line.push(waiter);
      this.lines.set(run, line);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  /** Gives a thread back once, and hands it to the next run in line. */
  private giver(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.busy--;
      this.next();
    };
  }

  private next(): void {
    if (this.busy >= this.slots) return;
    const first = this.lines.entries().next();
    if (first.done) return;
    const [run, line] = first.value;
    const waiter = line.shift() as () => void;
    // Served: the run goes to the back of the line, if it still waits for more.
    this.lines.delete(run);
    if (line.length > 0) this.lines.set(run, line);
    this.busy++;
    waiter();
  }
}
