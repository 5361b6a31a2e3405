/**
 * Roots in the host: directories (from `--root`, or added from the menu) as `file:` roots for
 * elicit/client's RootList, and the menu's Roots screen, where the person adds or removes one
 * while the host runs (the server hears `notifications/roots/list_changed`).
 */
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Root } from '../../client/index.ts';

/** A directory as a root: its absolute `file:` URI, named by its last part. */
export function rootOf(dir: string): Root {
  const path = resolve(dir);
  return { uri: pathToFileURL(path).href, name: basename(path) || path };
}

/** The directory a root names, for people. */
export function pathOf(root: Root): string {
  try {
    return fileURLToPath(root.uri);
  } catch {
    return root.uri;
  }
}

/** Why a directory cannot be a root, or undefined when it can. */
export function notADirectory(dir: string): string | undefined {
  try {
    return statSync(resolve(dir)).isDirectory() ? undefined : `${resolve(dir)} is not a directory.`;
  } catch {
    return `${resolve(dir)} does not exist.`;
  }
}
