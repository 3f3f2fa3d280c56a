/**
 * The client-credentials grant of an MCP server's [oauth] table. Apart from
 * oauth-config.ts (which the config loader reads at every start) because the
 * SDK module it builds on loads the SDK's whole schema set: only a connect
 * needs it.
 */
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { secret, type McpOAuthSpec } from "./oauth-config.ts";

/**
 * The client-credentials grant, from the SDK (client_secret_basic or
 * private_key_jwt). Tokens live in memory only: a new process asks again.
 */
export function clientCredentialsProvider(o: McpOAuthSpec, home: string, server: string): OAuthClientProvider {
  if (o.privateKeyEnv) {
    return new PrivateKeyJwtProvider({
      clientId: o.clientId,
      privateKey: secret(home, o.privateKeyEnv, server, "private_key_env"),
      algorithm: o.signingAlgorithm,
      expectedIssuer: o.issuer!,
      clientName: "Reasonix",
      scope: o.scope,
    });
  }
  return new ClientCredentialsProvider({
    clientId: o.clientId,
    clientSecret: secret(home, o.clientSecretEnv!, server, "client_secret_env"),
    expectedIssuer: o.issuer!,
    clientName: "Reasonix",
    scope: o.scope,
  });
}
