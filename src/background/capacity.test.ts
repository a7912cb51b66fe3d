import { describe, expect, it } from 'vitest';
import { DESCRIPTORS_PER_RUN, processLimits, runCapacity } from './capacity.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             96365                96365                processes
Max open files            1024                 4096                 files
`;

describe('runCapacity', () => {
  it('reads the soft limits of /proc/self/limits', () => {
    expect(processLimits(LIMITS)).toEqual({ openFiles: 1024, processes: 96365 });
    expect(
      processLimits('Max open files            unlimited            unlimited            files\n'),
    ).toEqual({
      openFiles: null,
      processes: null,
    });
  });

  it('holds what is configured while the limits allow it, and less when they do not', () => {
    expect(runCapacity(4, processLimits(LIMITS))).toBe(4);
    expect(runCapacity(1000, processLimits(LIMITS))).toBe(Math.floor((1024 - 256) / DESCRIPTORS_PER_RUN));
    expect(runCapacity(1000, { openFiles: 100, processes: null })).toBe(1);
    expect(runCapacity(1000, { openFiles: null, processes: null })).toBe(1000);
  });
});
