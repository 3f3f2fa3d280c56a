/** One `[[remote.hosts]]` entry of the user config, as written there. */
export interface ForwardConfig {
  type: "local" | "remote";
  bind: string;
  target: string;
}

export type ServeInstall = "auto" | "upload" | "npm" | "never";

export interface HostConfig {
  name: string;
  host?: string;
  port?: number;
  user?: string;
  identity_file?: string;
  passphrase_env?: string;
  password_env?: string;
  proxy_jump?: string;
  use_ssh_config?: boolean;
  workspace?: string;
  serve_install?: ServeInstall;
  /** Where provider keys live: "remote" (its own .env, default) or "local-proxy" (they stay on this machine). */
  credentials?: "remote" | "local-proxy";
  forwards?: ForwardConfig[];
}

export const HOST_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
