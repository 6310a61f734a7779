import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file builds its own app on its own SQLite file, so files run in parallel safely.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
