/**
 * A server's `oauth` table: a client registered ahead of time with the
 * authorization server (pre-registration), and the client-credentials grant
 * for machine-to-machine servers. User config only: a project's
 * reasonix.toml or .mcp.json never chooses credentials (the table is
 * ignored there, with a note). Secrets are never written in config.toml:
 * `client_secret_env` / `private_key_env` name variables in
 * $REASONIX_HOME/.env (0600, the same store as provider keys). Credentials
 * are sent only to `issuer`, the authorization server the user named; a
 * server pointing us at another one gets a refusal, not our secret.
 *
 *   [plugins.oauth]
 *   client_id = "reasonix-cli"
 *   client_secret_env = "CORP_MCP_SECRET"
 *   issuer = "https://login.corp.example"
 *   grant = "authorization_code"     # or "client_credentials"
 */
import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import { isTable } from "../config/validate.ts";
import { ReasonixError } from "../errors.ts";
import { homePaths } from "../home.ts";
import { SecretStore } from "../secrets/dotenv.ts";

export type OAuthGrant = "authorization_code" | "client_credentials";

export interface McpOAuthSpec {
  clientId: string;
  /** Variable in $REASONIX_HOME/.env holding the client secret. */
  clientSecretEnv?: string;
  /** Variable in $REASONIX_HOME/.env holding a PEM private key (private_key_jwt). */
  privateKeyEnv?: string;
  /** JWS algorithm for private_key_jwt (default RS256). */
  signingAlgorithm: string;
  /** The authorization server these credentials belong to (required with a secret or key). */
  issuer?: string;
  grant: OAuthGrant;
  scope?: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];

/** Parse `oauth` of a user-config server; errors name the file and field. */
export function parseOAuth(raw: unknown, where: string): McpOAuthSpec | undefined {
  if (raw === undefined) return undefined;
  const w = (f: string) => `${where} oauth.${f}`;
  if (!isTable(raw)) throw new ReasonixError("mcp-config", `${where}: oauth must be a table`);
  const s = (f: string): string | undefined => {
    const v = raw[f];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || !v) throw new ReasonixError("mcp-config", `${w(f)} must be a non-empty string`);
    return v;
  };
  const clientId = s("client_id");
  if (!clientId) throw new ReasonixError("mcp-config", `${w("client_id")} is missing`, { hint: "the client id the authorization server issued for Reasonix" });
  for (const f of ["client_secret", "private_key"]) {
    if (raw[f] !== undefined) throw new ReasonixError("mcp-config", `${w(f)}: secrets are not written in config files`, { hint: `put it in ${homePaths().dotenv} and set ${f}_env to the variable's name` });
  }
  const envName = (f: string) => {
    const v = s(f);
    if (v !== undefined && !ENV_NAME.test(v)) throw new ReasonixError("mcp-config", `${w(f)} must be a variable name (letters, digits, _)`);
    return v;
  };
  const clientSecretEnv = envName("client_secret_env");
  const privateKeyEnv = envName("private_key_env");
  if (clientSecretEnv && privateKeyEnv) throw new ReasonixError("mcp-config", `${where} oauth: set client_secret_env or private_key_env, not both`);
  const grant = (s("grant") ?? "authorization_code") as OAuthGrant;
  if (grant !== "authorization_code" && grant !== "client_credentials") throw new ReasonixError("mcp-config", `${w("grant")} must be authorization_code or client_credentials, not ${JSON.stringify(grant)}`);
  if (grant === "client_credentials" && !clientSecretEnv && !privateKeyEnv) throw new ReasonixError("mcp-config", `${where} oauth: the client_credentials grant needs client_secret_env or private_key_env`);
  if (privateKeyEnv && grant !== "client_credentials") throw new ReasonixError("mcp-config", `${w("private_key_env")}: a private key is used only with grant = "client_credentials"`);
  const signingAlgorithm = s("signing_algorithm") ?? "RS256";
  if (!ALGS.includes(signingAlgorithm)) throw new ReasonixError("mcp-config", `${w("signing_algorithm")} must be one of ${ALGS.join(", ")}`);
  const issuer = s("issuer");
  if (issuer) {
    try {
      new URL(issuer);
    } catch {
      throw new ReasonixError("mcp-config", `${w("issuer")} is not a URL: ${JSON.stringify(issuer)}`);
    }
  }
  if ((clientSecretEnv || privateKeyEnv) && !issuer) {
    throw new ReasonixError("mcp-config", `${w("issuer")} is missing`, { hint: "name the authorization server these credentials belong to, so they are never sent anywhere else" });
  }
  return { clientId, clientSecretEnv, privateKeyEnv, signingAlgorithm, issuer, grant, scope: s("scope") };
}

/** A value from $REASONIX_HOME/.env, or an error naming the variable and the file. */
export function secret(home: string, name: string, server: string, field: string): string {
  const file = homePaths(home).dotenv;
  const v = new SecretStore(file).read().get(name);
  if (!v) throw new ReasonixError("mcp-auth", `MCP server "${server}": oauth.${field} names ${name}, which has no value in ${file}`, { hint: `add a line ${name}=<value> to ${file}` });
  return v;
}

/** The configured client as the SDK's client information, bound (stamped) to its issuer. */
export function configuredClient(o: McpOAuthSpec, home: string, server: string): OAuthClientInformationMixed {
  return {
    client_id: o.clientId,
    ...(o.clientSecretEnv ? { client_secret: secret(home, o.clientSecretEnv, server, "client_secret_env") } : {}),
    ...(o.issuer ? { issuer: o.issuer } : {}),
  } as OAuthClientInformationMixed;
}
