/** Debian's Chromium driven by playwright-core, headless, and the steps a person takes in it. */
import { type Browser, chromium, type Page } from 'playwright-core';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/** On the development login page (when the browser lands there), continue. */
export async function passDevLogin(page: Page): Promise<void> {
  if (!page.url().includes('/elicit/login')) return;
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith('/elicit/login')),
    page.click('button[type=submit]'),
  ]);
}

/** The identity provider's development login page: sign in, and wait for its consent page. */
export async function signInAtProvider(page: Page, account: string): Promise<void> {
  await page.waitForSelector('input[name=login]');
  await page.fill('input[name=login]', account);
  await page.fill('input[name=password]', 'any');
  await page.click('button[type=submit]');
  await page.waitForSelector('button[type=submit]');
}

/** From the connect page: continue to the provider, sign in, and consent. */
export async function consentAtProvider(page: Page, account: string): Promise<void> {
  await page.click('#continue');
  await signInAtProvider(page, account);
  await page.click('button[type=submit]');
}
