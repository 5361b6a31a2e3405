/**
 * Opens a URL in the system browser without a shell: the URL is one argument to a fixed
 * program, never parsed by a shell. `ELICIT_BROWSER` names another program (tests use it).
 */
import { spawn } from 'node:child_process';
import { ElicitError } from '../errors.ts';
import { ELICIT_BROWSER_OPEN } from '../kernel/error-codes.ts';

/** The browser program could not be started; the message carries the URL to open by hand. */
export class BrowserOpenError extends ElicitError {}

/** How long the opener may run before the page counts as handed to the browser. */
const OPEN_WAIT_MS = 3_000;

export function openInBrowser(href: string): Promise<void> {
  const custom = process.env.ELICIT_BROWSER;
  const [cmd, args] =
    custom !== undefined && custom !== ''
      ? [custom, [href]]
      : process.platform === 'darwin'
        ? ['open', [href]]
        : process.platform === 'win32'
          ? ['rundll32', ['url.dll,FileProtocolHandler', href]]
          : ['xdg-open', [href]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true, shell: false });
    child.once('error', (error) =>
      reject(
        new BrowserOpenError(
          ELICIT_BROWSER_OPEN,
          `Could not start ${cmd} to open the page: ${error.message}. Open it yourself: ${href}, or set ELICIT_BROWSER to a program that can.`,
          { cause: error },
        ),
      ),
    );
    // The opener's exit code is the only sign the page did not open (xdg-open exits 3 when no
    // browser is found); one still running after a moment has handed the page on.
    const fail = (why: string) =>
      reject(
        new BrowserOpenError(
          ELICIT_BROWSER_OPEN,
          `Could not open your browser (${cmd} ${why}). Open this address yourself: ${href}`,
        ),
      );
    let waiting: NodeJS.Timeout | undefined;
    child.once('spawn', () => {
      waiting = setTimeout(() => {
        child.unref();
        resolve();
      }, OPEN_WAIT_MS);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(waiting);
      if (code === 0) resolve();
      else fail(code === null ? `was stopped by ${signal}` : `exited with code ${code}`);
    });
  });
}
