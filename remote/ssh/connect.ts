/**
 * Dial an SSH server with ssh2: host-key verification against known_hosts
 * (TOFU), agent/key/password/keyboard-interactive auth, ProxyJump chains and
 * a liveness watch (liveness.ts). Every failure is a typed SshError; terminal ones must not be retried.
 */
import type { Client, ClientChannel, ConnectConfig } from "ssh2";
import { SecretStore } from "../../core/secrets/dotenv.ts";
import { KnownHosts } from "../hostkeys/store.ts";
import { verifyHostKey, type HostKeyDecision } from "../hostkeys/verify.ts";
import { makeAuthHandler, type SecretLookup } from "./auth.ts";
import { deadAfterMs, watchLiveness, type Liveness } from "./liveness.ts";
import { AuthFailed, ConnectFailed, SshError, describeNetError } from "./errors.ts";
import { routeFailure } from "./net-reason.ts";
import { defaultPrompter, type Prompter } from "./prompt.ts";
import type { SshTarget } from "./target.ts";

export interface ConnectOptions {
  /** Record first-seen host keys without asking. */
  acceptNew?: boolean;
  knownHosts?: KnownHosts;
  prompter?: Prompter;
  secrets?: SecretLookup;
  /** ssh-agent socket; default $SSH_AUTH_SOCK. Pass null to disable the agent. */
  agentSocket?: string | null;
  /** Probe a silent link this often (default 1 s)… */
  keepaliveIntervalMs?: number;
  /** …and declare it dead after interval × (count + 1) of silence (default 4: 5 s). */
  keepaliveCountMax?: number;
  /** Handshake + auth deadline when nobody is being prompted (default 20 s). */
  readyTimeoutMs?: number;
  warn?: (message: string) => void;
  /** Called after each hop's host key is checked. */
  onHostKey?: (target: SshTarget, decision: HostKeyDecision) => void;
}

export interface SshConnection {
  client: Client;
  target: SshTarget;
  /** Clients of the jump hosts, outermost first (closed together with `client`). */
  jumps: Client[];
  hostKeys: HostKeyDecision[];
  /** When the final hop last sent us bytes (the link's last sign of life). */
  liveness: Liveness;
  /** The method that authenticated the final hop (e.g. "publickey (id_ed25519)", "password"). */
  authMethod: string;
  /** Close this connection and every jump. Safe to call twice. */
  close(): void;
}

// Algorithm preference mirrors OpenSSH: put key types we already know for the host first,
// so a host with a recorded RSA key is not reported as "unknown" because it also has ED25519.
const HOST_KEY_ALGOS = [
  "ssh-ed25519",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "rsa-sha2-512",
  "rsa-sha2-256",
  "ssh-rsa",
] as const;
const algosFor = (keyType: string): string[] => (keyType === "ssh-rsa" ? ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"] : [keyType]);

function hostKeyOrder(known: string[]): string[] {
  const first = known.flatMap(algosFor).filter((a) => (HOST_KEY_ALGOS as readonly string[]).includes(a));
  return [...new Set([...first, ...HOST_KEY_ALGOS])];
}

function classify(err: Error & { level?: string }, target: SshTarget, ctxTried: string[], notes: string[]): SshError {
  if (err instanceof SshError) return err;
  const where = target.label;
  if (err.level === "client-authentication") return new AuthFailed(where, ctxTried, notes.join("; "));
  if (err.level === "client-timeout") return new ConnectFailed(where, "timed out during the SSH handshake", err);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new ConnectFailed(where, `cannot resolve host name ${target.host}`, err);
  return new ConnectFailed(where, describeNetError(err), err);
}

/** `classify`, after checking that a "refused" is not really a missing route (see net-reason.ts). */
async function classifyAsync(err: Error & { level?: string }, target: SshTarget, tried: string[], notes: string[], direct: boolean): Promise<SshError> {
  if (direct && (err as NodeJS.ErrnoException).code === "ECONNREFUSED") {
    const real = await routeFailure(target.host).catch(() => null);
    if (real) return new ConnectFailed(target.label, describeNetError(Object.assign(new Error(real), { code: real })), err);
  }
  return classify(err, target, tried, notes);
}

async function dialOne(
  ssh2: typeof import("ssh2"),
  target: SshTarget,
  sock: ClientChannel | undefined,
  opts: Required<Pick<ConnectOptions, "prompter" | "secrets" | "warn">> & ConnectOptions & { knownHosts: KnownHosts },
): Promise<{ client: Client; decision: HostKeyDecision; authMethod: string; liveness: Liveness }> {
  const client = new ssh2.Client();
  const tried: string[] = [];
  const notes: string[] = [];
  let hostKeyError: SshError | null = null;
  let decision: HostKeyDecision | null = null;
  const agentSocket = opts.agentSocket === null ? undefined : (opts.agentSocket ?? process.env.SSH_AUTH_SOCK) || undefined;
  const config: ConnectConfig = {
    host: target.host,
    port: target.port,
    username: target.user,
    sock,
    // ssh2's keepalive only counts its own replies: watchLiveness replaces it.
    keepaliveInterval: 0,
    // Prompts (host key, passphrase) happen inside the handshake: give a person time to answer.
    readyTimeout: opts.prompter.interactive ? 10 * 60_000 : (opts.readyTimeoutMs ?? 20_000),
    algorithms: { serverHostKey: hostKeyOrder(opts.knownHosts.recordedTypes(target.host, target.port)) as never },
    hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
      verifyHostKey(target.host, target.port, key, { knownHosts: opts.knownHosts, acceptNew: !!opts.acceptNew, prompter: opts.prompter, warn: opts.warn })
        .then((d) => {
          decision = d;
          verify(true);
        })
        .catch((e) => {
          hostKeyError = e instanceof SshError ? e : new SshError("host_key", (e as Error).message, { terminal: true });
          verify(false);
        });
    },
    authHandler: makeAuthHandler({
      target,
      prompter: opts.prompter,
      secrets: opts.secrets,
      agentSocket,
      parseKey: ssh2.utils.parseKey as never,
      tried,
      notes,
    }),
  };
  const probeMs = opts.keepaliveIntervalMs ?? 1000;
  const deadMs = deadAfterMs(probeMs, opts.keepaliveCountMax ?? 4);
  let liveness: Liveness | null = null;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error & { level?: string }) => {
      cleanup();
      client.end();
      if (hostKeyError) return reject(hostKeyError);
      // Only a direct TCP dial has a route of ours to ask about (not a hop through a jump host).
      classifyAsync(err, target, tried, notes, !sock).then(reject, () => reject(classify(err, target, tried, notes)));
    };
    const onReady = () => {
      cleanup();
      liveness = watchLiveness(client, probeMs, deadMs);
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(hostKeyError ?? new ConnectFailed(target.label, "connection closed during the SSH handshake"));
    };
    const cleanup = () => {
      client.off("error", onError);
      client.off("ready", onReady);
      client.off("close", onClose);
      // ssh2 may still emit (e.g. "Connection lost before handshake" after our own end()):
      // an 'error' with no listener would throw out of the event loop.
      client.on("error", () => {});
    };
    client.on("error", onError);
    client.on("ready", onReady);
    client.on("close", onClose);
    client.connect(config);
  });
  // Later errors (link loss) are reported through 'close'; cleanup() left one listener so they never crash the process.
  return { client, decision: decision!, authMethod: tried[tried.length - 1] ?? "none", liveness: liveness! };
}

/** Open a TCP stream to host:port through an established client (one ProxyJump hop). */
function forwardThrough(client: Client, host: string, port: number, label: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.forwardOut("127.0.0.1", 0, host, port, (err, ch) => {
      if (err) reject(new ConnectFailed(label, `jump host could not reach ${host}:${port} (${err.message})`, err));
      else resolve(ch);
    });
  });
}

/** Connect to `target`, hopping through `target.jumps` first. */
export async function connectSsh(target: SshTarget, opts: ConnectOptions = {}): Promise<SshConnection> {
  const ssh2 = await import("ssh2");
  const seen = new Set<string>();
  const full = {
    ...opts,
    prompter: opts.prompter ?? defaultPrompter(),
    secrets: opts.secrets ?? new SecretStore(),
    knownHosts: opts.knownHosts ?? new KnownHosts(),
    warn: (m: string) => {
      if (seen.has(m)) return;
      seen.add(m);
      (opts.warn ?? ((x: string) => process.stderr.write(`warning: ${x}\n`)))(m);
    },
  };
  const hops = [...(target.jumps ?? []), { ...target, jumps: undefined }];
  const clients: Client[] = [];
  const decisions: HostKeyDecision[] = [];
  let authMethod = "none";
  let liveness: Liveness | null = null;
  const closeAll = () => {
    for (const c of [...clients].reverse()) c.end();
  };
  try {
    let sock: ClientChannel | undefined;
    for (const [i, hop] of hops.entries()) {
      if (i > 0) sock = await forwardThrough(clients[i - 1]!, hop.host, hop.port, hop.label);
      const { client, decision, authMethod: how, liveness: l } = await dialOne(ssh2, hop, sock, full);
      authMethod = how;
      liveness = l;
      clients.push(client);
      decisions.push(decision);
      opts.onHostKey?.(hop, decision);
    }
  } catch (e) {
    closeAll();
    throw e;
  }
  const client = clients[clients.length - 1]!;
  // Losing any jump loses the target; make the whole chain go down together.
  for (const j of clients.slice(0, -1)) j.on("close", () => client.end());
  client.on("close", closeAll);
  let closed = false;
  return {
    client,
    target,
    jumps: clients.slice(0, -1),
    hostKeys: decisions,
    authMethod,
    liveness: liveness!,
    close: () => {
      if (closed) return;
      closed = true;
      closeAll();
    },
  };
}
