// Headless Chromium for the tests: Debian's package (the test tools cannot download a browser
// here), with the flags that keep it from reaching for the network. playwright-core's
// launch() gives every browser a fresh temporary profile (its own --user-data-dir).
import { chromium, type Browser, type Page } from "playwright-core";
import { inject } from "vitest";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export function launch(): Promise<Browser> {
  // Over https (make web-test): accept exactly the stack's certificate, by its public-key pin.
  const spki = inject("stack").spki;
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      ...(spki ? [`--ignore-certificate-errors-spki-list=${spki}`] : []),
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Fails the test on any uncaught page error (the page must never crash). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

export const DESKTOP = { width: 1280, height: 720 };
export const PHONE = { width: 390, height: 844 };
