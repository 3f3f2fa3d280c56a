/**
 * The POSIX sh scripts that put a reasonix binary on the remote: receive an
 * upload, download a release there, or install through npm. Run like the others
 * in scripts.ts (on stdin to `/bin/sh -s`, values through a `set --` line).
 */
import { PRELUDE } from "./scripts.ts";

/**
 * Receive a binary as a (compressed) stream right after this script on stdin into
 * a `.part` named by the artifact's identity key, hashing it on the way. The result
 * stays a non-executable `.part` with its SHA-256 beside it (`.part.sum`): the fenced
 * START_SCRIPT compares that with the hash the client computed meanwhile, and only a
 * match is made executable and renamed into place (so the client never waits for its
 * own hash before sending).
 * sh (dash at least) reads stdin in blocks, so the payload must not be in the
 * pipe while the script is still being parsed: the script says `ready=1` once
 * it runs, and only then is the payload sent.
 * Args: VERSION CODEC(zstd|gzip|raw) KEY SLUG LOCK_ID SIZE
 */
export const INSTALL_SCRIPT = `${PRELUDE}
install_main() {
  B="$R/bin"; mkdir -p "$B" || return 1
  case $3 in ''|*[!0-9a-f]*) echo "error=bad upload key"; return 1 ;; esac
  # The decompressed bytes that arrived so far, kept across a lost link (any prefix the
  # decompressor wrote is a prefix of the binary): the next upload resumes from there.
  part="$B/.reasonix-$1.$3.part"
  # openssl first: it uses the CPU's SHA instructions, coreutils often does not (3x slower).
  if command -v openssl >/dev/null 2>&1; then H="openssl dgst -sha256 -r"
  elif command -v sha256sum >/dev/null 2>&1; then H=sha256sum
  else H="shasum -a 256"; fi
  # A writer from an earlier session (its link died unnoticed by the server) may still
  # hold the part open: stop it, so nothing but ours appends to it.
  first_line "$part.pid"; wp=$v
  case $wp in ''|*[!0-9]*) ;; *)
    case " $(ps -p "$wp" -o args= 2>/dev/null) " in *" tee -a "*|*" zstd -dcq "*|*" gzip -dc "*|*" cat "*)
      kill -TERM "$wp" 2>/dev/null; n=0
      while kill -0 "$wp" 2>/dev/null && [ $n -lt 50 ]; do n=$((n + 1)); sleep 0.1 2>/dev/null || sleep 1; done ;;
    esac ;;
  esac
  # Leftovers of uploads nobody will resume: other .part files of ours (named by a hex key:
  # the SHA-256 older clients used, or today's identity key of another build), untouched for
  # an hour and with no live writer, go with their companions. Anything else is not ours.
  for f in "$B"/.reasonix-*.part; do
    [ -f "$f" ] && [ "$f" != "$part" ] || continue
    k=\${f%.part}; k=\${k##*.}
    case $k in ''|*[!0-9a-f]*) continue ;; esac
    [ \${#k} -eq 32 ] || [ \${#k} -eq 64 ] || continue
    [ -n "$(find "$f" -prune -mmin +60 2>/dev/null)" ] || continue
    first_line "$f.pid"; fp=$v
    case $fp in ''|*[!0-9]*) ;; *) kill -0 "$fp" 2>/dev/null && continue ;; esac
    rm -f "$f" "$f.sum" "$f.pid" "$f".sum.*
  done
  # The hash of a finished earlier upload is made again over what this run sees.
  [ ! -e "$part.sum" ] || rm -f "$part.sum"
  have=0; [ -f "$part" ] && { have=$(wc -c < "$part"); have=\${have##* }; }
  printf 'have=%s\n' "$have"
  echo ready=1
  # The client answers where its payload starts: from what we have, or from zero.
  IFS= read -r from || { echo "error=no start offset from the client"; return 1; }
  [ "$from" = "from=$have" ] && [ -f "$part" ] || : > "$part" || return 1
  case $2 in zstd) D="zstd -dcq" ;; gzip) D="gzip -dc" ;; *) D=cat ;; esac
  # Decompression and hashing run while the upload streams in: the hasher reads what the
  # part already had (a resumed upload), then a copy of every byte appended to it. The
  # appender (tee) records its pid, which is what a later session stops. In the
  # background, whose stdin is /dev/null: it reads ours through fd 3.
  exec 3<&0
  { { [ ! -s "$part" ] || cat "$part"; } && $D <&3 | sh -c 'echo $$ > "$1.pid"; exec tee -a "$1"' sh "$part"; } | $H > "$part.sum.$$" &
  exec 3<&-
  wait $!
  rm -f "$part.pid"
  got=$(wc -c < "$part"); got=\${got##* }
  # Short (the stream broke off, or did not decode): keep what arrived for a resume.
  [ "$got" = "$6" ] || { rm -f "$part.sum.$$"; own_lock "$4" "$5" || echo lost_lock=1; echo "error=decompression failed ($got of $6 bytes written)"; return 1; }
  # Whole: its hash goes beside it, from this run only (one that saw every byte).
  mv -f "$part.sum.$$" "$part.sum" || { echo "error=cannot record the upload's hash"; return 1; }
  echo received=1
}
install_main "$@"; exit $?
`;

/**
 * The remote fetches the release artifact itself (fastest when it has a good
 * internet link): download to a temp file, check its SHA-256 against the value
 * the local side read from SHA256SUMS, then decompress it into place. Prints
 * progress=BYTES lines while downloading. Args: VERSION URL KIND(zst|tgz) SHA256
 */
export const FETCH_SCRIPT = `${PRELUDE}
fetch_main() {
  B="$R/bin"; mkdir -p "$B" || return 1
  dl="$B/.download-$1.$$.tmp"; tmp="$B/.reasonix-$1.$$.tmp"
  trap 'rm -f "$dl" "$tmp"' EXIT
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --connect-timeout 5 --max-time 900 -o "$dl" "$2" 2>"$dl.err" &
  elif command -v wget >/dev/null 2>&1; then
    wget -q -T 5 -O "$dl" "$2" 2>"$dl.err" &
  else echo "error=neither curl nor wget on the remote"; return 1; fi
  job=$!
  while kill -0 $job 2>/dev/null; do
    printf 'progress=%s\\n' "$(wc -c < "$dl" 2>/dev/null | tr -d ' ')"; sleep 0.3 2>/dev/null || sleep 1
  done
  wait $job || { echo "error=download failed: $(head -c 300 "$dl.err" | tr '\\n' ' ')"; rm -f "$dl.err"; return 1; }
  rm -f "$dl.err"
  if command -v openssl >/dev/null 2>&1; then H="openssl dgst -sha256 -r"
  elif command -v sha256sum >/dev/null 2>&1; then H=sha256sum
  else H="shasum -a 256"; fi
  sum=$($H < "$dl" | cut -d' ' -f1)
  [ "$sum" = "$4" ] || { echo "error=checksum mismatch for the downloaded file (got \${sum:-nothing})"; return 1; }
  case $3 in
    zst) zstd -dcq --long=27 < "$dl" > "$tmp" ;;
    *) gzip -dc < "$dl" | tar -xOf - reasonix > "$tmp" ;;
  esac || { echo "error=cannot unpack the download"; return 1; }
  [ -s "$tmp" ] || { echo "error=the download held no reasonix executable"; return 1; }
  chmod 755 "$tmp" && mv -f "$tmp" "$B/reasonix-$1" || { echo "error=cannot move the binary into place"; return 1; }
  printf 'installed=1\\nbytes=%s\\n' "$(wc -c < "$dl" | tr -d ' ')"
}
fetch_main "$@"; exit 0
`;

/** Install through npm and link the result as the version-matched binary. Args: VERSION */
export const NPM_INSTALL_SCRIPT = `${PRELUDE}
command -v npm >/dev/null 2>&1 || { echo "error=npm is not installed on the remote"; exit 0; }
npm i -g "reasonix@$1" >&2 || { echo "error=npm i -g reasonix@$1 failed"; exit 0; }
bin="$(npm prefix -g)/bin/reasonix"
[ -x "$bin" ] || { echo "error=npm installed no reasonix executable at $bin"; exit 0; }
got=$("$bin" --version 2>/dev/null)
case $got in *"$1"*) ;; *) echo "error=npm installed version '$got', expected $1"; exit 0 ;; esac
mkdir -p "$R/bin" && ln -sf "$bin" "$R/bin/reasonix-$1" && echo installed=1
`;
