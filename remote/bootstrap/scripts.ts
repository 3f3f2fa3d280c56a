/**
 * The POSIX sh scripts the bootstrap runs on the remote. Each is sent on stdin
 * to `/bin/sh -s` (see remote/ssh/exec.ts), so the user's login shell never parses
 * them; values arrive as "$@" through a `set --` line on stdin, never on a
 * command line. Output is `key=value` lines for `parseKv`.
 *
 * Remote layout under ~/.reasonix/remote/:
 *   bin/reasonix-<version>   version-matched binaries
 *   serve-<slug>.{json,token,log,port,pid}
 *   serve-<slug>.lock/       mkdir lock (owner, stamp)
 */

// Core tools by well-known directories first: a login PATH is never relied on.
export const PRELUDE = `PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin:$PATH
export PATH
umask 077
R="$HOME/.reasonix/remote"
# Is pid $1 a live serve of ours for slug $2? Our uid, and started with our own
# pid file (full path): a reused pid, or another user's serve for the same
# workspace (root can signal it), must never look like ours. Leaves its args in $a.
serve_ours() {
  a=; u=
  kill -0 "$1" 2>/dev/null || return 1
  if [ -r "/proc/$1/cmdline" ]; then a=$(tr '\\000' ' ' < "/proc/$1/cmdline"); u=$(stat -c %u "/proc/$1" 2>/dev/null)
  else a=$(ps -p "$1" -o args= 2>/dev/null); u=$(ps -p "$1" -o uid= 2>/dev/null | tr -d ' '); fi
  [ -n "$u" ] && [ "$u" = "$(id -u)" ] || return 1
  case " $a " in *" serve "*" --pid-file $R/serve-$2.pid "*) return 0 ;; esac
  return 1
}
# Replace the lock's stamp by rename: a waiter must never read it half-written
# (empty), which it would take for a holder that died before stamping.
stamp_lock() {
  date +%s > "$1/.stamp.$$" && mv -f "$1/.stamp.$$" "$1/stamp"
}
# Fencing: do we (id $2) still hold the lock of slug $1? Checked right before every
# irreversible step, because a holder paused past the staleness window (a laptop lid
# closed mid-upload) has lost the lock to another client without knowing it.
own_lock() {
  first_line "$R/serve-$1.lock/owner"; [ -n "$2" ] && [ "$v" = "$2" ]
}
# The first line of file $1 in $v (empty when it is missing): a builtin, where $(cat) forks
# (these scripts run on every connect, and a fork costs milliseconds on a busy machine).
first_line() {
  v=; [ -f "$1" ] || return 0
  IFS= read -r v 2>/dev/null < "$1" || :
}
`;

/**
 * Resolve the workspace, derive the slug, report platform/tools and the state
 * of the recorded serve. With MODE=lock, first take the per-slug mkdir lock
 * (stale after STALE_S seconds without a fresh stamp, default 60) and report lock state;
 * MODE=lockcold takes it only when the version's binary is missing.
 * Args: RAW_WORKSPACE VERSION MODE(nolock|lock|lockcold) LOCK_ID [STALE_S]
 */
export const STATE_SCRIPT = `${PRELUDE}
W=$1; V=$2; MODE=$3; ID=$4; STALE=\${5:-60}
case $STALE in ''|*[!0-9]*) STALE=60 ;; esac
case $W in "~") W=$HOME ;; "~/"*) W="$HOME/\${W#"~/"}" ;; esac
un=$(uname -sm)
printf 'os=%s\\narch=%s\\nhome=%s\\n' "\${un%% *}" "\${un##* }" "$HOME"
found=
if [ -d "$W" ]; then
  W=$(cd "$W" && pwd -P) || exit 1
else
  # Deleted (or never created): report it, and still find the serve recorded for it so
  # status/stop can manage one left running there. The caller decides whether to go on.
  printf 'missing_workspace=%s\\n' "$W"
  found=$(grep -lF "\\"workspace\\":\\"$W\\"" "$R"/serve-*.json 2>/dev/null | head -n 1)
  [ -n "$found" ] || exit 0
  # Reported to the caller as an error: never leave it a lock it did not ask for.
  [ "$MODE" = lockcold ] && MODE=nolock
fi
mkdir -p "$R/bin" || { echo "error=cannot create $R/bin"; exit 0; }
chmod 700 "$HOME/.reasonix" "$R" 2>/dev/null
# basename: W is absolute with no trailing slash (pwd -P), or / itself.
b=\${W##*/}; [ -n "$b" ] || b=/
base=$(printf %s "$b" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-32)
crc=$(printf %s "$W" | cksum); crc=\${crc%% *}
S="$base-$crc"
if [ -n "$found" ]; then S=$(basename "$found" .json); S=\${S#serve-}; fi
printf 'workspace=%s\\nslug=%s\\n' "$W" "$S"
[ -x "$R/bin/reasonix-$V" ] && echo have_bin=1
for t in zstd gzip tar curl wget sha256sum shasum openssl npm setsid; do
  command -v $t >/dev/null 2>&1 && echo "tool_$t=1"
done
# lockcold: take the lock only when this version's binary is missing (no serve of it can
# be reused, so the caller needs the lock anyway: one round trip instead of two).
[ "$MODE" = lockcold ] && [ ! -x "$R/bin/reasonix-$V" ] && MODE=lock
if [ "$MODE" = lock ]; then
  L="$R/serve-$S.lock"; n=0; seen=
  while ! mkdir "$L" 2>/dev/null; do
    now=$(date +%s); o=$(cat "$L/owner" 2>/dev/null); raw=$(cat "$L/stamp" 2>/dev/null); ts=$raw
    case $ts in ''|*[!0-9]*) ts= ;; esac
    # The holder's keeper process lives exactly as long as its SSH session: when it is
    # gone (Ctrl-C, a killed client, sshd dropping the session) the lock is free at once.
    # Our own lock id: this very client, back on a new connection after a lost link while
    # its old session (and keeper) lingers on the server. It is ours: carry on.
    if [ -n "$ID" ] && [ "$o" = "$ID" ]; then echo lock_resumed=1; break; fi
    hp=$(cat "$L/holder" 2>/dev/null); dead=
    case $hp in ''|*[!0-9]*) ;; *) kill -0 "$hp" 2>/dev/null || dead=1 ;; esac
    # Tell our client who we wait for and how far they are (the holder's progress line);
    # a holder already known to be gone is not waited for, nor reported.
    if [ -z "$dead" ] && [ $((n % 5)) -eq 0 ]; then
      pr="$o|$(cat "$L/progress" 2>/dev/null)"
      [ "$pr" = "$seen" ] || { printf 'waiting=%s\\n' "$pr"; seen=$pr; }
    fi
    # A holder that has not written its stamp yet is given the same time as everyone else.
    if [ -n "$dead" ] || { [ -n "$ts" ] && [ $((now - ts)) -gt "$STALE" ]; } || { [ -z "$ts" ] && [ $n -gt $((STALE * 10)) ]; }; then
      # Move it aside, then delete it only if it is still the lock judged stale: one that
      # another client broke and re-took in the meantime is live, and goes back untouched.
      if mv "$L" "$L.stale.$$" 2>/dev/null; then
        if [ "$(cat "$L.stale.$$/owner" 2>/dev/null)" = "$o" ] && [ "$(cat "$L.stale.$$/stamp" 2>/dev/null)" = "$raw" ]; then
          rm -rf "$L.stale.$$" && echo lock_broken=1
        elif [ ! -e "$L" ]; then
          mv "$L.stale.$$" "$L" 2>/dev/null
        fi
      fi
      continue
    fi
    n=$((n + 1))
    if [ $n -gt 1200 ]; then echo lock_timeout=1; exit 0; fi
    sleep 0.1 2>/dev/null || sleep 1
  done
  printf '%s\\n' "$ID" > "$L/owner"; stamp_lock "$L"
  echo locked=1
fi
J="$R/serve-$S.json"; P="$R/serve-$S.pid"; T="$R/serve-$S.token"
[ -f "$J" ] && printf 'json=%s\\n' "$(tr -d '\\n' < "$J")"
first_line "$P"; pid=$v
case $pid in ''|*[!0-9]*) pid=$( [ -f "$J" ] && sed -n 's/.*"pid": *\\([0-9][0-9]*\\).*/\\1/p' "$J") ;; esac
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
  serve_ours "$pid" "$S" && echo ours=1
  printf 'pid=%s\\nalive=1\\nargs=%s\\n' "$pid" "$a"
elif [ -n "$pid" ]; then
  printf 'pid=%s\\nalive=0\\n' "$pid"
fi
first_line "$T"; [ -n "$v" ] && printf 'token=%s\\n' "$v"
exit 0
`;

/**
 * The lock holder's keeper, run on its own channel for as long as the lock is held:
 * it records its pid in the lock (waiters take a dead pid for an abandoned lock) and
 * copies each line it reads (the holder's progress) to the lock's progress file.
 * It ends when its stdin closes: released, or the client went away without releasing
 * (Ctrl-C, killed, the session died), and then it frees the lock itself, so the next
 * client never waits on (or reports the progress of) a holder that is gone.
 * Args: SLUG LOCK_ID
 */
export const HOLD_SCRIPT = `${PRELUDE}
L="$R/serve-$1.lock"
[ "$(cat "$L/owner" 2>/dev/null)" = "$2" ] || { echo not_owner=1; exit 0; }
echo $$ > "$L/.holder.$$" && mv -f "$L/.holder.$$" "$L/holder"
echo held=1
while IFS= read -r line; do
  [ "$(cat "$L/owner" 2>/dev/null)" = "$2" ] || exit 0
  printf '%s\\n' "$line" > "$L/.progress.$$" && mv -f "$L/.progress.$$" "$L/progress"
  stamp_lock "$L"
done
# Still ours and still kept by us: move it aside, and delete it only if it is the lock we
# checked (one a waiter broke and re-took meanwhile goes back untouched).
if [ "$(cat "$L/owner" 2>/dev/null)" = "$2" ] && [ "$(cat "$L/holder" 2>/dev/null)" = "$$" ] && mv "$L" "$L.gone.$$" 2>/dev/null; then
  if [ "$(cat "$L.gone.$$/owner" 2>/dev/null)" = "$2" ] && [ "$(cat "$L.gone.$$/holder" 2>/dev/null)" = "$$" ]; then rm -rf "$L.gone.$$"
  elif [ ! -e "$L" ]; then mv "$L.gone.$$" "$L" 2>/dev/null; fi
fi
exit 0
`;

/** Refresh or release our lock. Args: SLUG LOCK_ID ACTION(refresh|release) */
export const LOCK_SCRIPT = `${PRELUDE}
L="$R/serve-$1.lock"
[ "$(cat "$L/owner" 2>/dev/null)" = "$2" ] || { echo not_owner=1; exit 0; }
if [ "$3" = release ]; then rm -rf "$L"; else stamp_lock "$L"; fi
echo ok=1
`;

/**
 * Stop a serve we started (checked by its pid-file argument): TERM, wait up to
 * 10 s, then KILL. With LOCK_ID (under the lock), only while we still hold it.
 * Args: SLUG PID [LOCK_ID]
 */
export const STOP_SCRIPT = `${PRELUDE}
S=$1; pid=$2
case $pid in ''|*[!0-9]*) echo error=bad pid; exit 0 ;; esac
[ -z "$3" ] || own_lock "$S" "$3" || { echo lost_lock=1; exit 0; }
if ! kill -0 "$pid" 2>/dev/null; then echo was_running=0; rm -f "$R/serve-$S.pid"; exit 0; fi
serve_ours "$pid" "$S" || { echo not_ours=1; exit 0; }
# CONT too: a stopped (hung, SIGSTOPped) serve must get to handle its TERM.
kill -TERM "$pid" 2>/dev/null; kill -CONT "$pid" 2>/dev/null
n=0
while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do n=$((n + 1)); sleep 0.1 2>/dev/null || sleep 1; done
if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; echo killed=1; sleep 0.2 2>/dev/null || sleep 1; fi
rm -f "$R/serve-$S.pid" "$R/serve-$S.port" "$R/serve-$S.json"
echo stopped=1
`;

/**
 * Start `serve` detached (setsid + nohup where setsid exists, a double fork +
 * nohup where it does not, as on macOS; no channel held open), wait for its
 * port file. The token comes in on stdin and goes to a 0600 file. Only while we
 * still hold the lock; a live serve of ours already recorded for the workspace
 * (started by whoever held the lock meanwhile) is adopted, never doubled.
 * With RECORD (the JSON record's fields after pid and addr, as `"k":v,…}`), the
 * serve it started is recorded in serve-<slug>.json and the lock released, in the
 * same fenced run (the client stops the serve, which removes the record, if its
 * health check then fails).
 * With KEY and SHA256 (an upload INSTALL_SCRIPT received for this start), the
 * upload's `.part` is put in place first, in the same fenced run, and only when the
 * hash the remote computed over the bytes it received is SHA256 (the client's): a
 * corrupted or swapped upload is removed, never made executable or run.
 * Args: BIN WORKSPACE SLUG TOKEN LOCK_ID [RECORD [KEY SHA256]]
 */
export const START_SCRIPT = `${PRELUDE}
BIN=$1; W=$2; S=$3
T="$R/serve-$S.token"; P="$R/serve-$S.port"; PF="$R/serve-$S.pid"; LOG="$R/serve-$S.log"
own_lock "$S" "$5" || { echo lost_lock=1; exit 0; }
first_line "$PF"; old=$v
case $old in ''|*[!0-9]*) ;; *)
  if serve_ours "$old" "$S" && [ -s "$P" ]; then
    first_line "$P"; addr=$v; first_line "$T"
    printf 'adopt=1\\naddr=%s\\npid=%s\\ntoken=%s\\n' "$addr" "$old" "$v"; exit 0
  fi ;;
esac
if [ -n "$7" ]; then
  case $7 in *[!0-9a-f]*) echo "error=bad upload key"; exit 0 ;; esac
  part="\${BIN%/*}/.\${BIN##*/}.$7.part"
  first_line "$part.sum"; sum=\${v%% *}
  if [ -z "$sum" ] || [ "$sum" != "$8" ]; then rm -f "$part" "$part.sum"; printf 'checksum_mismatch=%s\\n' "\${sum:-nothing}"; exit 0; fi
  chmod 755 "$part" && mv -f "$part" "$BIN" && rm -f "$part.sum" || { echo "error=cannot move the binary into place"; exit 0; }
  echo placed=1
fi
printf '%s\\n' "$4" > "$T.$$.tmp" && mv -f "$T.$$.tmp" "$T" || { echo "error=cannot write $T"; exit 0; }
# The old record describes a serve that is going away: never pair its address with the new pid.
rm -f "$P" "$PF" "$R/serve-$S.json"
cd "$W" || { echo "error=cannot enter $W"; exit 0; }
# credentials = "local-proxy": the serve reads this manifest (0600, no keys) at start when it exists.
export REASONIX_PROVIDER_PROXY_FILE="$R/provider-proxy.json"
printf '\\n--- %s starting %s serve (workspace %s)\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$BIN" "$W" >> "$LOG"
if command -v setsid >/dev/null 2>&1; then
  setsid nohup "$BIN" serve --addr 127.0.0.1:0 --auth token --token-file "$T" --port-file "$P" --pid-file "$PF" --workspace "$W" </dev/null >>"$LOG" 2>&1 &
  child=$!
else
  # No setsid (macOS): fork twice, so the serve is re-parented at once and is no job
  # of this shell or child of the SSH session; nohup keeps a hangup away from it.
  ( nohup "$BIN" serve --addr 127.0.0.1:0 --auth token --token-file "$T" --port-file "$P" --pid-file "$PF" --workspace "$W" </dev/null >>"$LOG" 2>&1 &
    echo $! > "$R/serve-$S.child" )
  child=$(cat "$R/serve-$S.child" 2>/dev/null); rm -f "$R/serve-$S.child"
fi
n=0
while [ ! -s "$P" ]; do
  if ! kill -0 "$child" 2>/dev/null; then echo died=1; tail -n 20 "$LOG" | sed 's/^/log=/'; exit 0; fi
  n=$((n + 1))
  # Every 20 ms (the serve starts in a few hundred): 60 s in all, 1 s steps without fractional sleep.
  if [ $n -gt 3000 ]; then echo timeout=1; tail -n 20 "$LOG" | sed 's/^/log=/'; exit 0; fi
  sleep 0.02 2>/dev/null || { sleep 1; n=$((n + 49)); }
done
first_line "$P"; addr=$v; first_line "$PF"; pid=\${v:-$child}
printf 'addr=%s\\npid=%s\\n' "$addr" "$pid"
[ -n "$6" ] || exit 0
J="$R/serve-$S.json"
own_lock "$S" "$5" || { echo lost_lock=1; exit 0; }
printf '{"pid":%s,"addr":"%s",%s\\n' "$pid" "$addr" "$6" > "$J.$$.tmp" && mv -f "$J.$$.tmp" "$J" && echo published=1 || exit 0
rm -rf "$R/serve-$S.lock" && echo released=1
`;

/**
 * Before a remembered serve (address + token from an earlier connect) gets the
 * token: is that pid still the recorded, live serve of ours for the slug, at
 * that address, and does its workspace still exist? Args: SLUG PID ADDR [WORKSPACE]
 */
export const VERIFY_SCRIPT = `${PRELUDE}
S=$1; pid=$2
# A serve whose workspace was deleted under it must not be reused as if nothing happened.
[ -z "$4" ] || [ -d "$4" ] || { echo workspace_missing=1; exit 0; }
case $pid in ''|*[!0-9]*) echo stale=1; exit 0 ;; esac
[ "$(cat "$R/serve-$S.pid" 2>/dev/null)" = "$pid" ] || { echo stale=1; exit 0; }
serve_ours "$pid" "$S" || { echo stale=1; exit 0; }
grep -qF "\\"addr\\":\\"$3\\"" "$R/serve-$S.json" 2>/dev/null || { echo stale=1; exit 0; }
echo ours=1
`;

/** Last lines of the serve log, optionally following it. Args: SLUG LINES FOLLOW(0|1) */
export const LOGS_SCRIPT = `${PRELUDE}
LOG="$R/serve-$1.log"
[ -f "$LOG" ] || { echo "no log at $LOG" >&2; exit 3; }
[ "$3" = 1 ] || exec tail -n "$2" "$LOG"
# Follow until our stdin closes (the client went away), then stop tail: no orphans left behind.
tail -n "$2" -f "$LOG" &
t=$!
cat >/dev/null
kill "$t" 2>/dev/null
`;

/** The last lines of the serve log, or nothing. Args: SLUG LINES */
export const LOGS_TAIL_SCRIPT = `${PRELUDE}
tail -n "$2" "$R/serve-$1.log" 2>/dev/null
exit 0
`;

/** Parse `key=value` lines; repeated keys (log=) are joined with newlines. */
export function parseKv(text: string): Map<string, string> {
  const kv = new Map<string, string>();
  for (const line of text.split("\n")) {
    const i = line.indexOf("=");
    if (i <= 0) continue;
    const k = line.slice(0, i);
    const v = line.slice(i + 1);
    kv.set(k, kv.has(k) ? `${kv.get(k)}\n${v}` : v);
  }
  return kv;
}
