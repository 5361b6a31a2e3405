/**
 * Where a terminal keeps what it needs to reconnect to an MCP server without signing in again:
 * the client registration and the tokens, one file per server (origin + path, hashed) in the
 * user's config directory. The directory is 0700 and the files 0600; a file is written to a
 * fresh temporary name and renamed over the old one, so a crash never leaves half a file.
 */

import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { ELICIT_SIGNIN_STORE_CORRUPT, ELICIT_SIGNIN_STORE_UNSAFE } from '../kernel/error-codes.ts';
import { SignInError } from './loopback.ts';

export interface SavedSignIn {
  readonly version: 1;
  /** The server these belong to, for people reading the directory. */
  readonly server: string;
  readonly client?: StoredOAuthClientInformation;
  readonly tokens?: StoredOAuthTokens;
}

/** `$XDG_CONFIG_HOME/elicit`, else `~/.config/elicit`. */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg?.startsWith('/') ? xdg : join(homedir(), '.config'), 'elicit');
}

/** The server's identity for storage: origin and path, without query or fragment. */
export function serverKey(serverUrl: string | URL): string {
  const u = new URL(serverUrl);
  return `${u.origin}${u.pathname}`;
}

export function signInFile(configDir: string, serverUrl: string | URL): string {
  const hash = createHash('sha256').update(serverKey(serverUrl)).digest('hex').slice(0, 32);
  return join(configDir, 'auth', `${hash}.json`);
}

const MAX_FILE_BYTES = 256 * 1024;

/** Refuses a directory another user owns or that is a symlink: tokens must stay private. */
async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid))
    throw new SignInError(
      ELICIT_SIGNIN_STORE_UNSAFE,
      `${dir} is not a directory owned by you; elicit keeps tokens there. Remove it or set XDG_CONFIG_HOME to a private directory.`,
    );
  if ((st.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

export async function readSignIn(file: string): Promise<SavedSignIn | undefined> {
  let text: string;
  try {
    const st = await lstat(file);
    if (!st.isFile() || st.size > MAX_FILE_BYTES)
      throw new SignInError(
        ELICIT_SIGNIN_STORE_UNSAFE,
        `${file} is not a regular file of at most ${MAX_FILE_BYTES} bytes. Delete it (or run elicit logout) and sign in again.`,
      );
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let data: SavedSignIn | undefined;
  try {
    data = JSON.parse(text) as SavedSignIn;
  } catch {
    data = undefined;
  }
  const has = (v: unknown, key: string) =>
    v === undefined ||
    (v !== null &&
      typeof v === 'object' &&
      typeof (v as Record<string, unknown>)[key] === 'string');
  if (
    data === undefined ||
    data === null ||
    typeof data !== 'object' ||
    data.version !== 1 ||
    !has(data.client, 'client_id') ||
    !has(data.tokens, 'access_token')
  )
    throw new SignInError(
      ELICIT_SIGNIN_STORE_CORRUPT,
      `${file} is not a saved sign-in elicit can read. Delete it (or run elicit logout) and sign in again.`,
    );
  return data;
}

export async function writeSignIn(file: string, data: SavedSignIn): Promise<void> {
  const dir = join(file, '..');
  await privateDir(join(dir, '..'));
  await privateDir(dir);
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(JSON.stringify(data, null, 2));
    await fh.chmod(0o600);
    await fh.sync();
  } catch (error) {
    await fh.close();
    await rm(tmp, { force: true });
    throw error;
  }
  await fh.close();
  await rename(tmp, file);
}

export async function removeSignIn(file: string): Promise<boolean> {
  try {
    await rm(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
