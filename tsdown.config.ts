import { fileURLToPath } from 'node:url';
import { defineConfig, type UserConfig } from 'tsdown';

/**
 * In the elements' bundle the confusables table is a chunk of its own, loaded on demand: the
 * url module's import of it is pointed at src/web/confusables-lazy.ts (see there).
 */
const lazyConfusables = {
  name: 'elicit-lazy-confusables',
  resolveId(source: string, importer: string | undefined) {
    if (source === './confusables-data.ts' && importer?.endsWith('/src/url/confusables.ts'))
      return fileURLToPath(new URL('./src/web/confusables-lazy.ts', import.meta.url));
    return undefined;
  },
};

/** A minified browser module in dist/browser (built separately, so no chunks shared between them). */
function browser(entry: Record<string, string>, lazy = false): UserConfig {
  return {
    entry,
    ...(lazy
      ? {
          plugins: [lazyConfusables],
          outputOptions: { chunkFileNames: 'elicit-web-[name].js' },
        }
      : {}),
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    dts: false,
    clean: false,
    fixedExtension: false,
    outDir: 'dist/browser',
    noExternal: [/.*/],
  };
}

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'schema/index': 'src/schema/index.ts',
      'server/index': 'src/server/index.ts',
      'url/index': 'src/url/index.ts',
      'client/index': 'src/client/index.ts',
      'client/terminal': 'src/client/terminal.ts',
      'store/index': 'src/store/index.ts',
      'store/testing': 'src/store/testing.ts',
      'connect/index': 'src/connect/index.ts',
      'web/index': 'src/web/index.ts',
      'gateway/index': 'src/gateway/index.ts',
      'web/react': 'src/web/react.ts',
      'cli/main': 'src/cli/main.ts',
    },
    format: 'esm',
    platform: 'node',
    target: 'node22',
    dts: true,
    fixedExtension: false,
    clean: true,
    outDir: 'dist',
  },
  // The two elements as one self-contained browser module (no dependencies to resolve).
  browser({ 'elicit-web': 'src/web/index.ts' }, true),
  // The browser host page of `elicit demo --web` (the SDK client included).
  browser({ host: 'src/web/host/main.ts' }),
  browser({ inbox: 'src/web/inbox-page.ts' }),
]);
