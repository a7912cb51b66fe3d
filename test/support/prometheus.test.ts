import { describe, expect, it } from 'vitest';
import { parsePrometheus } from './prometheus.js';

describe('the Prometheus text parser of the metrics tests', () => {
  it('reads NaN and Inf in any case, as Prometheus does, and refuses other words', () => {
    const families = parsePrometheus(
      [
        '# TYPE lag gauge',
        'lag Nan',
        '# TYPE big gauge',
        'big +Inf',
        '# TYPE small gauge',
        'small -inf',
      ].join('\n'),
    );
    expect(families.get('lag')?.samples[0]?.value).toBeNaN();
    expect(families.get('big')?.samples[0]?.value).toBe(Infinity);
    expect(families.get('small')?.samples[0]?.value).toBe(-Infinity);
    expect(() => parsePrometheus('# TYPE lag gauge\nlag none')).toThrow(/not a line/);
  });
});
