import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Built and run apart, once per CI run: `npm run test:containers` (vitest.containers.config.ts).
    exclude: ['**/node_modules/**', 'test/containers/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // Fails a test file that leaves a process, a temporary folder entry or a database connection.
    setupFiles: ['test/support/leak-check.ts'],
    // Sized for a two-core machine running two suites at once: a test's own waits (waitFor, a
    // process's start) must end before the test does, so that their message is the one reported.
    // Multi-process tests set a longer timeout of their own.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A test that checks nothing cannot fail: every test must make at least one assertion
    // (expect.poll, .resolves and .rejects count).
    expect: { requireAssertions: true },
    // Every test file gets its own database, so files run in parallel; this machine has two cores.
    maxWorkers: 2,
    // In CI a JSON report is written too; .ci/run turns it into its closing "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
