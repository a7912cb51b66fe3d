import { describe, expect, it } from 'vitest';
import { FairShare } from './fair-share.js';

describe('FairShare', () => {
  it('serves the runs in turn, whatever one of them queued, and drops a waiter whose signal aborts', async () => {
    const share = new FairShare(1);
    const never = new AbortController().signal;
    const served: string[] = [];
    const first = await share.take({}, never);
    const busy = { name: 'busy' };
    const quiet = { name: 'quiet' };
    const leaving = new AbortController();
    const waits = [
      ...[1, 2, 3, 4].map((index) =>
        share.take(busy, never).then((give) => ({ run: `busy ${index}`, give })),
      ),
      share.take({}, leaving.signal).then((give) => ({ run: 'left', give })),
      ...[1, 2].map((index) => share.take(quiet, never).then((give) => ({ run: `quiet ${index}`, give }))),
    ];
    leaving.abort();
    expect(await waits[4]).toEqual({ run: 'left', give: null });
    // One thread: each waiter, once served, gives it back for the next.
    for (const wait of waits.filter((_, index) => index !== 4))
      void wait.then(({ run, give }) => {
        served.push(run);
        give?.();
      });
    first?.();
    await Promise.all(waits);
    expect(served).toEqual(['busy 1', 'quiet 1', 'busy 2', 'quiet 2', 'busy 3', 'busy 4']);
  });
});
