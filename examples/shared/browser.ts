/**
 * The person's browser in the URL-mode stories: headless Chromium driven by playwright-core.
 * The renderer opens each link, passes the development sign-in, lets the story do what the
 * person would on the page, and waits for "You can close this tab".
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { type Renderer, scriptedRenderer } from '../../src/client/index.ts';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export function browserRenderer(
  page: Page,
  onPage: (page: Page) => Promise<void>,
  log: (line: string) => void,
): Renderer {
  return {
    ...scriptedRenderer({ log }),
    async url(request) {
      log(`opening ${request.analysis.href ?? ''}`);
      await page.goto(request.analysis.href as string);
      if (page.url().includes('/elicit/login')) {
        await Promise.all([
          page.waitForURL((u) => !u.pathname.startsWith('/elicit/login')),
          page.click('button[type=submit]'),
        ]);
      }
      await onPage(page);
      await page.waitForSelector('text=You can close this tab');
      return { action: 'opened' };
    },
  };
}
