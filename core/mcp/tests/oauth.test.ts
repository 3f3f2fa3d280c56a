// OAuth state: one 0600 file per server URL under $REASONIX_HOME/mcp/oauth,
// never used for another URL; refresh rotation keeps the newest token; a
// background connection never sends anyone to a browser.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { specFrom } from "../config.ts";
import { clearOAuth, FileOAuthProvider, oauthProviderFor, oauthStatePath } from "../oauth.ts";

const home = () => realpathSync(mkdtempSync(join(tmpdir(), "rx-mcp-oauth-")));

test("state is 0600 under $REASONIX_HOME/mcp/oauth and bound to the exact URL", () => {
  const h = home();
  const url = "https://mcp.example.com/mcp";
  const file = oauthStatePath(h, url);
  expect(file.startsWith(join(h, "mcp", "oauth"))).toBe(true);
  const p = new FileOAuthProvider("ex", url, file, { interactive: false });
  p.saveClientInformation({ client_id: "c1" });
  p.saveTokens({ access_token: "a1", refresh_token: "r1", token_type: "Bearer" });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(join(h, "mcp", "oauth")).mode & 0o777).toBe(0o700);
  expect(p.tokens()?.access_token).toBe("a1");
  // The same file read for another URL (a moved declaration) yields nothing.
  const other = new FileOAuthProvider("ex", "https://evil.example.com/mcp", file, { interactive: false });
  expect(other.tokens()).toBeUndefined();
  expect(other.clientInformation()).toBeUndefined();
  expect(oauthStatePath(h, "https://evil.example.com/mcp")).not.toBe(file);
});

test("refresh rotation: the new refresh token replaces the old; a refresh without one keeps the old", () => {
  const h = home();
  const url = "https://mcp.example.com/mcp";
  const p = new FileOAuthProvider("ex", url, oauthStatePath(h, url), { interactive: false });
  p.saveTokens({ access_token: "a1", refresh_token: "r1", token_type: "Bearer" });
  p.saveTokens({ access_token: "a2", refresh_token: "r2", token_type: "Bearer" });
  expect(p.tokens()).toMatchObject({ access_token: "a2", refresh_token: "r2" });
  p.saveTokens({ access_token: "a3", token_type: "Bearer" });
  expect(p.tokens()).toMatchObject({ access_token: "a3", refresh_token: "r2" });
  expect(readFileSync(oauthStatePath(h, url), "utf8")).not.toContain("r1");
  p.invalidateCredentials("tokens");
  expect(p.tokens()).toBeUndefined();
  expect(clearOAuth(oauthStatePath(h, url))).toBe(true);
  expect(clearOAuth(oauthStatePath(h, url))).toBe(false);
});

test("a background connection never redirects to a browser; without saved state it uses no OAuth at all", async () => {
  const h = home();
  const spec = specFrom({ name: "ex", type: "http", url: "https://mcp.example.com/mcp" }, "user", "f");
  expect(oauthProviderFor(spec, h, { interactive: false })).toBeUndefined();
  const p = new FileOAuthProvider("ex", spec.url!, oauthStatePath(h, spec.url!), { interactive: false });
  await expect(p.redirectToAuthorization(new URL("https://auth.example.com/authorize"))).rejects.toThrow(/needs sign-in/);
  p.saveTokens({ access_token: "a", token_type: "Bearer" });
  expect(oauthProviderFor(spec, h, { interactive: false })).toBeDefined();
});
