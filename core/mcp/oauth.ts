/**
 * OAuth for HTTP/SSE MCP servers without a static Authorization header:
 * the SDK runs discovery (protected-resource and authorization-server
 * metadata), dynamic client registration, PKCE S256 and refresh; this file
 * keeps the client and token state, one 0600 file per server URL under
 * $REASONIX_HOME/mcp/oauth, bound to that exact URL (a file whose recorded
 * URL differs is never used). A background connection never opens a
 * browser: it fails with "run `reasonix mcp auth NAME`"; only that command
 * passes `interactive` and a redirect handler.
 *
 * A client the user registered ahead of time (`oauth.client_id`, the secret
 * in .env; see oauth-config.ts) replaces dynamic registration, and the
 * client-credentials grant uses the SDK's providers (no browser at all).
 * Step-up: a 403 insufficient_scope in the background is recorded here and
 * the call fails naming `reasonix mcp auth NAME`, which then asks for the
 * wider scope (see stepUpFetch and auth-flow.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { extractWWWAuthenticateParams, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { McpServerSpec } from "./config.ts";
import { configuredClient } from "./oauth-config.ts";
import { clientCredentialsProvider } from "./oauth-grant.ts";

interface OAuthState {
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
  /** A 403 insufficient_scope seen in the background: the scope the server wants. */
  stepUp?: { scope: string; resourceMetadataUrl?: string };
  savedAt?: string;
}

export const oauthStatePath = (home: string, url: string): string =>
  join(home, "mcp", "oauth", `${createHash("sha256").update(url).digest("hex").slice(0, 32)}.json`);

export interface OAuthOptions {
  /** Only `reasonix mcp auth` (and tests) may send a user to the authorization page. */
  interactive: boolean;
  redirectUrl?: string;
  onRedirect?(url: URL): void | Promise<void>;
  /** A pre-registered client (from the user's config): used as is, never re-registered. */
  client?: OAuthClientInformationMixed;
  /** Sign in again even with a refresh token at hand (step-up to a wider scope). */
  fresh?: boolean;
}

export class FileOAuthProvider implements OAuthClientProvider {
  constructor(
    readonly serverName: string,
    readonly url: string,
    private readonly file: string,
    private readonly opts: OAuthOptions,
  ) {
    // Without saveClientInformation the SDK never registers a new client: a
    // pre-registered one bound to another authorization server is refused.
    if (opts.client) Object.defineProperty(this, "saveClientInformation", { value: undefined });
  }

  private read(): OAuthState {
    if (!existsSync(this.file)) return { url: this.url };
    try {
      const s = JSON.parse(readFileSync(this.file, "utf8")) as OAuthState;
      return s.url === this.url ? s : { url: this.url };
    } catch {
      return { url: this.url };
    }
  }

  private write(patch: Partial<OAuthState>, replace = false): void {
    const next = { ...(replace ? {} : this.read()), ...patch, url: this.url, savedAt: new Date().toISOString() };
    writeFileAtomic(this.file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
  }

  get redirectUrl(): string | undefined {
    return this.opts.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Reasonix",
      redirect_uris: this.opts.redirectUrl ? [this.opts.redirectUrl] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return randomBytes(16).toString("hex");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.opts.client ?? this.read().client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.write({ client });
  }

  tokens(): OAuthTokens | undefined {
    const t = this.read().tokens;
    if (!t || !this.opts.fresh) return t;
    const { refresh_token: _skip, ...rest } = t;
    return rest;
  }

  /** Refresh rotation: the new token set (with its new refresh token) replaces the old one. */
  saveTokens(tokens: OAuthTokens): void {
    const old = this.read().tokens;
    // Some servers omit refresh_token on refresh when it did not rotate: keep the one we have.
    this.write({ tokens: tokens.refresh_token || !old?.refresh_token ? tokens : { ...tokens, refresh_token: old.refresh_token } });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.opts.interactive || !this.opts.onRedirect) {
      throw new ReasonixError("mcp-auth", `MCP server "${this.serverName}" needs sign-in`, { hint: `run: reasonix mcp auth ${this.serverName}` });
    }
    await this.opts.onRedirect(url);
  }

  /** The scope a server asked for with 403 insufficient_scope, if sign-in has not widened it yet. */
  stepUp(): OAuthState["stepUp"] {
    return this.read().stepUp;
  }

  recordStepUp(scope: string, resourceMetadataUrl?: string): void {
    const granted = this.read().tokens?.scope?.split(" ").filter(Boolean) ?? [];
    const wanted = [...new Set([...granted, ...scope.split(" ").filter(Boolean)])].join(" ");
    this.write({ stepUp: { scope: wanted, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) } });
  }

  clearStepUp(): void {
    const { stepUp: _done, ...rest } = this.read();
    this.write(rest, true);
  }

  saveCodeVerifier(verifier: string): void {
    this.write({ verifier });
  }

  codeVerifier(): string {
    const v = this.read().verifier;
    if (!v) throw new ReasonixError("mcp-auth", `no PKCE verifier saved for "${this.serverName}"; start again with reasonix mcp auth ${this.serverName}`);
    return v;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const s = this.read();
    if (scope === "all") return void clearOAuth(this.file);
    if (scope === "client") delete s.client;
    if (scope === "tokens") delete s.tokens;
    if (scope === "verifier") delete s.verifier;
    this.write(s, true);
  }
}

export function clearOAuth(file: string): boolean {
  if (!existsSync(file)) return false;
  rmSync(file, { force: true });
  return true;
}

/**
 * The provider for a connection. Background (not interactive): only when
 * sign-in already happened (else a 401 says to run mcp auth), or for the
 * client-credentials grant, which needs no one.
 */
export function oauthProviderFor(spec: McpServerSpec, home: string, opts: OAuthOptions): OAuthClientProvider | undefined {
  if (spec.oauth?.grant === "client_credentials") return clientCredentialsProvider(spec.oauth, home, spec.name);
  const file = oauthStatePath(home, spec.url!);
  if (!opts.interactive && !existsSync(file)) return undefined;
  const client = spec.oauth ? configuredClient(spec.oauth, home, spec.name) : undefined;
  return new FileOAuthProvider(spec.name, spec.url!, file, { ...opts, ...(client ? { client } : {}) });
}

/**
 * fetch for a background connection: a 403 insufficient_scope is not
 * answered by a new sign-in (that needs the user's browser). The wanted
 * scope is recorded and the request fails with what to run.
 */
export function stepUpFetch(provider: FileOAuthProvider, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const res = await base(url, init);
    if (res.status !== 403) return res;
    const { scope, error, resourceMetadataUrl } = extractWWWAuthenticateParams(res);
    if (error !== "insufficient_scope") return res;
    provider.recordStepUp(scope ?? "", resourceMetadataUrl?.toString());
    const text = `MCP server "${provider.serverName}" needs more access${scope ? ` (scope "${scope}")` : ""}: run reasonix mcp auth ${provider.serverName}`;
    return new Response(text, { status: 403, headers: { "content-type": "text/plain" } });
  };
}
