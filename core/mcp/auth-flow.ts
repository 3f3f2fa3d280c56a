/**
 * The sign-in behind `reasonix mcp auth NAME`: a loopback redirect listener
 * on 127.0.0.1, the SDK's discovery + dynamic registration + PKCE S256
 * authorization, the code exchanged for tokens (stored by FileOAuthProvider),
 * and one connect with them to prove it worked. A pre-registered client
 * (user config `oauth`) skips registration; the client-credentials grant
 * needs no browser (one connect proves the credentials); a scope a server
 * asked for with 403 insufficient_scope is requested now (step-up).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { auth, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReasonixError, errorMessage } from "../errors.ts";
import { buildInfo } from "../version.ts";
import { expandSpec, expansionEnv, type McpServerSpec } from "./config.ts";
import { FileOAuthProvider, oauthStatePath } from "./oauth.ts";
import { configuredClient } from "./oauth-config.ts";
import { clientCredentialsProvider } from "./oauth-grant.ts";

export interface AuthFlowOptions {
  home: string;
  /** Show or open the authorization URL (the CLI opens a browser; tests follow it). */
  openUrl(url: URL): void | Promise<void>;
  /** Give up waiting for the redirect after this long (default 5 minutes). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

const PAGE = (ok: boolean, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>Reasonix</title><p>${ok ? "Signed in" : "Sign-in failed"}: ${text.replace(/[<>&]/g, "")}</p><p>You can close this tab.</p>`;

export async function authorize(spec: McpServerSpec, o: AuthFlowOptions): Promise<{ tools: number }> {
  if (spec.type === "stdio") throw new ReasonixError("mcp-auth", `MCP server "${spec.name}" runs locally (stdio); sign-in is for http and sse servers`, { exitCode: 2 });
  const s = expandSpec(spec, expansionEnv(spec, o.home, o.env ?? process.env));
  if (Object.keys(s.headers).some((h) => h.toLowerCase() === "authorization")) {
    throw new ReasonixError("mcp-auth", `MCP server "${spec.name}" has a static Authorization header, which always wins; OAuth is not used`, { exitCode: 2 });
  }
  const url = new URL(s.url!);
  const transport = (provider: OAuthClientProvider) =>
    s.type === "sse" ? new SSEClientTransport(url, { requestInit: { headers: s.headers }, authProvider: provider }) : new StreamableHTTPClientTransport(url, { requestInit: { headers: s.headers }, authProvider: provider });
  if (s.oauth?.grant === "client_credentials") return { tools: await listWith(transport(clientCredentialsProvider(s.oauth, o.home, s.name)), s.url!) };
  let resolveCode!: (code: string) => void;
  let rejectCode!: (e: Error) => void;
  const code = new Promise<string>((res, rej) => ((resolveCode = res), (rejectCode = rej)));
  const listener = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    if (u.pathname !== "/callback") return void res.writeHead(404).end();
    const c = u.searchParams.get("code");
    const err = u.searchParams.get("error");
    res.writeHead(c ? 200 : 400, { "content-type": "text/html; charset=utf-8" }).end(PAGE(!!c, c ? spec.name : err ?? "no code"));
    if (c) resolveCode(c);
    else rejectCode(new ReasonixError("mcp-auth", `the authorization server refused: ${err ?? "no code in the redirect"}`));
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  const redirectUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
  const file = oauthStatePath(o.home, s.url!);
  const client = s.oauth ? configuredClient(s.oauth, o.home, s.name) : undefined;
  const opts = { interactive: true, redirectUrl, onRedirect: o.openUrl, ...(client ? { client } : {}) };
  const provider = new FileOAuthProvider(spec.name, s.url!, file, opts);
  const timer = setTimeout(() => rejectCode(new ReasonixError("mcp-auth", "no redirect came back in time; run the command again")), o.timeoutMs ?? 300_000);
  try {
    const stepUp = provider.stepUp();
    if (stepUp) {
      // Sign in again for the wider scope, even with a refresh token at hand.
      const fresh = new FileOAuthProvider(spec.name, s.url!, file, { ...opts, fresh: true });
      const how = { serverUrl: url, scope: stepUp.scope, ...(stepUp.resourceMetadataUrl ? { resourceMetadataUrl: new URL(stepUp.resourceMetadataUrl) } : {}) };
      try {
        if ((await auth(fresh, how)) === "REDIRECT") await auth(fresh, { ...how, authorizationCode: await code });
      } catch (e) {
        throw e instanceof ReasonixError ? e : new ReasonixError("mcp-auth", `sign-in for scope "${stepUp.scope}" failed: ${errorMessage(e)}`);
      }
      provider.clearStepUp();
      return { tools: await listWith(transport(provider), s.url!) };
    }
    let t = transport(provider);
    const first = new Client({ name: "reasonix", version: buildInfo().version });
    try {
      await first.connect(t);
      // Tokens stored earlier were still good (or refreshed): nothing more to do.
      const tools = (await first.listTools()).tools.length;
      await first.close();
      return { tools };
    } catch (e) {
      if (!(e instanceof UnauthorizedError)) throw new ReasonixError("mcp-auth", `could not reach ${s.url}: ${errorMessage(e)}`);
    }
    await t.finishAuth(await code);
    t = transport(provider);
    return { tools: await listWith(t, s.url!) };
  } finally {
    clearTimeout(timer);
    listener.close();
  }
}

/** Connect with these credentials and count the tools (the proof that sign-in worked). */
async function listWith(t: SSEClientTransport | StreamableHTTPClientTransport, url: string): Promise<number> {
  const client = new Client({ name: "reasonix", version: buildInfo().version });
  try {
    await client.connect(t);
    return (await client.listTools()).tools.length;
  } catch (e) {
    throw e instanceof ReasonixError ? e : new ReasonixError("mcp-auth", `could not sign in to ${url}: ${errorMessage(e)}`);
  } finally {
    await client.close().catch(() => {});
  }
}
