#!/usr/bin/env node
// The `elicit` command. Plain JavaScript without top-level await, so an old Node reaches the
// version check and prints one line instead of a stack trace; nothing is imported before it.
//
// In a clone (src/ present) it runs the TypeScript sources on the project's own Node (the `node`
// dev dependency, which strips types natively); installed from a package it runs dist/.

var NEED = '^22.13.0 || >=23.5.0';
var parts = process.versions.node.split('.');
var major = Number(parts[0]);
var minor = Number(parts[1]);
if (!(major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13))) {
  process.stderr.write(
    'elicit needs Node ' +
      NEED +
      ' (node:sqlite without a flag); this is Node ' +
      process.versions.node +
      ". Install a newer Node, or in a clone run `npx elicit`, which uses the project's own.\n",
  );
  process.exit(1);
}

Promise.all([import('node:fs'), import('node:path'), import('node:url')])
  .then(([fs, path, url]) => {
    const root = path.dirname(path.dirname(fs.realpathSync(url.fileURLToPath(import.meta.url))));
    const source = path.join(root, 'src', 'cli', 'main.ts');
    if (!fs.existsSync(source))
      return import(url.pathToFileURL(path.join(root, 'dist', 'cli', 'main.js')).href);
    const own = [
      path.join(root, 'node_modules', 'node', 'bin', 'node'),
      path.join(root, 'node_modules', '.bin', 'node'),
    ].find((p) => fs.existsSync(p));
    if (own === undefined) {
      process.stderr.write(
        `elicit: run \`npm install\` in ${root} first (it brings the project's Node).\n`,
      );
      process.exit(1);
    }
    if (fs.realpathSync(own) === fs.realpathSync(process.execPath))
      return import(url.pathToFileURL(source).href);
    // Another Node (one without type stripping, or a different version): hand over to the project's.
    return import('node:child_process').then((cp) => {
      const child = cp.spawn(own, [source, ...process.argv.slice(2)], { stdio: 'inherit' });
      // The terminal sends Ctrl+C to both processes; the child decides what it means.
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
      child.on('exit', (code, signal) => {
        if (signal !== null) {
          process.removeAllListeners(signal);
          process.kill(process.pid, signal);
        } else process.exit(code === null ? 1 : code);
      });
    });
  })
  .catch((error) => {
    process.stderr.write(`elicit: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
