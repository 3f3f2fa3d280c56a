import { expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { browserLaunchTarget } from "../open-browser.ts";

test("a URL with a token is handed over as a private redirect file, never as an argument", () => {
  const url = "http://127.0.0.1:8787/#token=0123456789abcdef";
  const { target, cleanup } = browserLaunchTarget(url);
  expect(target).not.toContain("token");
  expect(statSync(target).mode & 0o777).toBe(0o600);
  expect(readFileSync(target, "utf8")).toContain(`location.replace(${JSON.stringify(url)})`);
  cleanup!();
  expect(existsSync(target)).toBe(false);
});

test("a URL without a secret is opened directly", () => {
  expect(browserLaunchTarget("http://127.0.0.1:8787/")).toEqual({ target: "http://127.0.0.1:8787/" });
});
