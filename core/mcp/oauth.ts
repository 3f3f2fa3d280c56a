/**
 * OAuth for HTTP/SSE MCP servers without a static Authorization header:
 * the SDK runs discovery (protected-resource and authorization-server
 * metadata), dynamic client registration, PKCE S256 and refresh; this file
 * keeps the client and token state, one 0600 file per server URL under
 * $REASONIX_HOME/mcp/oauth, bound to that exact URL (a file whose recorded
 * URL differs is never used). A background connection never opens a
 * browser: it fails with "run `reasonix mcp auth NAME`"; only that command
 * passes `interactive` and a redirect handler.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { McpServerSpec } from "./config.ts";

interface OAuthState {
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
  savedAt?: string;
}

export const oauthStatePath = (home: string, url: string): string =>
  join(home, "mcp", "oauth", `${createHash("sha256").update(url).digest("hex").slice(0, 32)}.json`);

export interface OAuthOptions {
  /** Only `reasonix mcp auth` (and tests) may send a user to the authorization page. */
  interactive: boolean;
  redirectUrl?: string;
  onRedirect?(url: URL): void | Promise<void>;
}

export class FileOAuthProvider implements OAuthClientProvider {
  constructor(
    readonly serverName: string,
    readonly url: string,
    private readonly file: string,
    private readonly opts: OAuthOptions,
  ) {}

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
    return this.read().client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.write({ client });
  }

  tokens(): OAuthTokens | undefined {
    return this.read().tokens;
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

/** The provider for a background connection: only when sign-in already happened (else a 401 says to run mcp auth). */
export function oauthProviderFor(spec: McpServerSpec, home: string, opts: OAuthOptions): FileOAuthProvider | undefined {
  const file = oauthStatePath(home, spec.url!);
  if (!opts.interactive && !existsSync(file)) return undefined;
  return new FileOAuthProvider(spec.name, spec.url!, file, opts);
}
