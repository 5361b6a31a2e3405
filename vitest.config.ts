import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^elicit\/schema$/, replacement: src('schema/index.ts') },
      { find: /^elicit\/server$/, replacement: src('server/index.ts') },
      { find: /^elicit\/url$/, replacement: src('url/index.ts') },
      { find: /^elicit\/client$/, replacement: src('client/index.ts') },
      { find: /^elicit\/terminal$/, replacement: src('client/terminal.ts') },
      { find: /^elicit\/connect$/, replacement: src('connect/index.ts') },
      { find: /^elicit\/store$/, replacement: src('store/index.ts') },
      { find: /^elicit\/store\/testing$/, replacement: src('store/testing.ts') },
      { find: /^elicit\/gateway$/, replacement: src('gateway/index.ts') },
      { find: /^elicit$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
