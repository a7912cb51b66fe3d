// What the benchmark scripts report with: nearest-rank percentiles, and progress lines on stderr.

/** The nearest-rank percentile `p` of `values`; NaN when there are none. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** A function that writes `message` to stderr after the seconds since this call. */
export function progressLog() {
  const began = Date.now();
  return (message) =>
    process.stderr.write(`[${((Date.now() - began) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
}
