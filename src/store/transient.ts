/**
 * Waiting out moments when the database cannot answer, where doing a thing twice is harmless. What
 * such a moment looks like differs by dialect (`Db.isTransient`).
 */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Tells an error that will pass (`Db.isTransient`, `Store.isTransient`) from one that will not. */
export type IsTransient = (error: unknown) => boolean;

/**
 * Runs `fn`, and again with backoff while it fails on an error `isTransient` admits, for up to
 * `withinMs`; then the last error stands. Only for work that may be done twice (a read, a lease
 * renewal).
 */
export async function retryTransient<T>(
  fn: () => Promise<T>,
  withinMs: number,
  isTransient: IsTransient,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await fn();
    } catch (error) {
      if (!isTransient(error) || Date.now() + delay > deadline) throw error;
      await sleep(delay);
    }
  }
}
