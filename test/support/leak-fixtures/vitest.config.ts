import { defineConfig } from 'vitest/config';

// The suite's own leak checks over files that leak on purpose, for `leak-check.test.ts`.
export default defineConfig({
  test: {
    include: ['test/support/leak-fixtures/*.fixture.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/leak-check.ts'],
    maxWorkers: 2,
  },
});
