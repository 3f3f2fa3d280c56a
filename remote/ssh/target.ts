/** A fully resolved place to SSH to: what the transport needs, nothing more. */
export interface SshTarget {
  /** What to call it in messages: the host alias or user@host:port. */
  label: string;
  host: string;
  port: number;
  user: string;
  /** Private key files to try, in order (already ~-expanded). */
  identityFiles: string[];
  /** Only use identityFiles (no agent keys), like OpenSSH's IdentitiesOnly. */
  identitiesOnly?: boolean;
  /** Variable in $REASONIX_HOME/.env with the identity passphrase. */
  passphraseEnv?: string;
  /** Variable in $REASONIX_HOME/.env with the login password. */
  passwordEnv?: string;
  /** Hosts to hop through, first one dialled directly (OpenSSH ProxyJump order). */
  jumps?: SshTarget[];
}

export const targetLabel = (t: Pick<SshTarget, "user" | "host" | "port">): string =>
  `${t.user}@${t.host.includes(":") ? `[${t.host}]` : t.host}${t.port === 22 ? "" : `:${t.port}`}`;
