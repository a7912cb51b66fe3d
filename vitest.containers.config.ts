import { defineConfig } from 'vitest/config';

// The container tests (test/containers): run once per CI run by `npm run test:containers`, not by
// `npm test`. They build images and start containers with podman, as root; one file at a time, since
// each one keeps both cores busy.
export default defineConfig({
  test: {
    include: ['test/containers/**/*.test.ts'],
    testTimeout: 300_000,
    // Building the base images from Debian's packages the first time takes minutes; then it is cached.
    hookTimeout: 2_400_000,
    fileParallelism: false,
    maxWorkers: 1,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/containers.json' },
  },
});
