/**
 * After a lost link, sshd keeps our dead session (and every `-R` port it
 * listens on) until it notices: seconds to minutes, depending on when its
 * retransmissions or ClientAlive probes give up. Our new session then cannot
 * listen on the same ports, so the provider proxy's forward (whose port a
 * running serve already knows) stayed away for up to 26 s after the link.
 *
 * Each connection that carries `-R` forwards records which sshd process serves
 * it (pid and start time). On the next connection, that process, if it is still
 * the same one, is ours and useless (we closed that connection), so it is ended
 * before the forwards are asked for again. Nothing else is touched: a session
 * of another client, or a pid reused by an unrelated process, does not match.
 */
import type { Client } from "ssh2";
import { runScript } from "../ssh/exec.ts";

export interface SessionId {
  pid: number;
  /** `ps -o lstart=` of that pid (spaces removed): tells a reused pid apart. */
  started: string;
}

/**
 * $1/$2: the previous session's pid and start time (or empty). Prints this
 * session's sshd pid and start time, "pid=… started=…", after ending the previous
 * one (waiting up to ~3 s for it to exit, so its ports are free).
 */
const SCRIPT = `started() { ps -o lstart= -p "$1" 2>/dev/null | tr -d ' '; }
p=$$ me=""
i=0
while [ -n "$p" ] && [ "$p" -gt 1 ] && [ $i -lt 10 ]; do
  case "$(ps -o comm= -p "$p" 2>/dev/null)" in *sshd*) me=$p; break;; esac
  p=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')
  i=$((i+1))
done
if [ -n "$1" ] && [ "$1" != "$me" ] && [ -n "$2" ]; then
  case "$(ps -o comm= -p "$1" 2>/dev/null)" in
    *sshd*)
      if [ "$(started "$1")" = "$2" ] && kill -TERM "$1" 2>/dev/null; then
        n=0
        while kill -0 "$1" 2>/dev/null && [ $n -lt 30 ]; do sleep 0.1 2>/dev/null || sleep 1; n=$((n+1)); done
        echo ended=1
      fi;;
  esac
fi
[ -n "$me" ] && echo "pid=$me" && echo "started=$(started "$me")"
exit 0`;

/** End `previous` if it is still our old session, and return this connection's session (null if unknown). */
export async function replaceStaleSession(client: Client, previous: SessionId | null): Promise<{ session: SessionId | null; ended: boolean }> {
  const r = await runScript(client, SCRIPT, { args: previous ? [String(previous.pid), previous.started] : [], timeoutMs: 15_000 });
  const pid = Number(/^pid=(\d+)$/m.exec(r.stdout)?.[1]);
  const started = /^started=(.*)$/m.exec(r.stdout)?.[1]?.trim() ?? "";
  return { session: pid > 1 && started ? { pid, started } : null, ended: /^ended=1$/m.test(r.stdout) };
}
