import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'schema/index': 'src/schema/index.ts',
    'server/index': 'src/server/index.ts',
    'url/index': 'src/url/index.ts',
    'client/index': 'src/client/index.ts',
    'client/terminal': 'src/client/terminal.ts',
    'store/index': 'src/store/index.ts',
    'connect/index': 'src/connect/index.ts',
    'cli/main': 'src/cli/main.ts',
  },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  dts: true,
  fixedExtension: false,
  clean: true,
  outDir: 'dist',
});
