#!/bin/sh
# Reasonix installer:  curl -fsSL <release-url>/install.sh | sh
# POSIX sh (dash, busybox ash, bash). Downloads the archive for this OS/CPU and
# SHA256SUMS, verifies the checksum, and installs atomically.
#
#   sh install.sh [--version X] [--no-modify-path] [--help]
#   REASONIX_DOWNLOAD_URL  where archives live (default: the project's releases)
#   REASONIX_INSTALL_DIR   where `reasonix` goes (default: ~/.reasonix/bin)
set -eu

RELEASES="https://github.com/reasonix/reasonix/releases"
version=""
modify_path=1

say() { printf '%s\n' "$*"; }
err() { printf 'reasonix-install: error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || err "--version needs a value (e.g. --version 0.2.0)"; version="${2#v}"; shift 2 ;;
    --version=*) version="${1#--version=}"; version="${version#v}"; shift ;;
    --no-modify-path) modify_path=0; shift ;;
    -h|--help)
      say "usage: install.sh [--version X] [--no-modify-path]"
      say "env: REASONIX_DOWNLOAD_URL (archive base URL), REASONIX_INSTALL_DIR (default ~/.reasonix/bin)"
      exit 0 ;;
    *) printf 'reasonix-install: unknown option: %s (see --help)\n' "$1" >&2; exit 2 ;;
  esac
done

[ -n "${HOME:-}" ] || err "HOME is not set"

# --- platform ---------------------------------------------------------------
os=$(uname -s 2>/dev/null || echo unknown)
arch=$(uname -m 2>/dev/null || echo unknown)
case "$os" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW*|MSYS*|CYGWIN*) err "Windows: download reasonix-windows-x64.zip from $RELEASES instead" ;;
  *) err "unsupported operating system: $os (supported: Linux, macOS)" ;;
esac
case "$arch" in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) err "unsupported CPU architecture: $arch (supported: x86_64, arm64)" ;;
esac
# A shell running under Rosetta reports x86_64 on Apple silicon: prefer native.
if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
  arch=arm64
fi
if [ "$os" = linux ] && { ls /lib/ld-musl-* >/dev/null 2>&1 || (ldd --version 2>&1 | grep -qi musl); }; then
  say "note: musl libc detected; the Linux build targets glibc and may need gcompat (apk add gcompat)"
fi

target="reasonix-$os-$arch"
archive="$target.tar.gz"
if [ -n "${REASONIX_DOWNLOAD_URL:-}" ]; then
  base="${REASONIX_DOWNLOAD_URL%/}"
elif [ -n "$version" ]; then
  base="$RELEASES/download/v$version"
else
  base="$RELEASES/latest/download"
fi
install_dir="${REASONIX_INSTALL_DIR:-$HOME/.reasonix/bin}"

# --- tools ------------------------------------------------------------------
if command -v curl >/dev/null 2>&1; then
  fetch() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -q -O "$2" "$1"; }
else
  err "need curl or wget to download"
fi
if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
  err "need sha256sum or shasum to verify the download"
fi
command -v tar >/dev/null 2>&1 || err "need tar to unpack the download"

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t reasonix)
trap 'rm -rf "$tmp"' EXIT INT TERM HUP

# --- download and verify ----------------------------------------------------
say "downloading $archive from $base"
fetch "$base/$archive" "$tmp/$archive" || err "download failed: $base/$archive (check the version and your connection)"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || err "download failed: $base/SHA256SUMS"
expected=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")
[ -n "$expected" ] || err "SHA256SUMS has no entry for $archive"
actual=$(sha256 "$tmp/$archive")
[ "$expected" = "$actual" ] || err "checksum mismatch for $archive (expected $expected, got $actual); nothing was installed"

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || err "could not unpack $archive"
[ -f "$tmp/x/reasonix" ] || err "$archive does not contain a reasonix binary"
chmod 755 "$tmp/x/reasonix"
new_version=$("$tmp/x/reasonix" --version 2>/dev/null) || err "the downloaded binary does not run on this machine ($os-$arch)"
if [ -n "$version" ] && [ "$new_version" != "reasonix $version" ]; then
  err "asked for $version but the download is $new_version"
fi

# --- install atomically -----------------------------------------------------
mkdir -p "$install_dir" || err "cannot create $install_dir"
staged="$install_dir/.reasonix.$$.tmp"
cp "$tmp/x/reasonix" "$staged" || { rm -f "$staged"; err "cannot write to $install_dir"; }
chmod 755 "$staged"
mv -f "$staged" "$install_dir/reasonix" || { rm -f "$staged"; err "cannot install into $install_dir"; }
say "installed $new_version to $install_dir/reasonix"

# --- PATH -------------------------------------------------------------------
case ":${PATH:-}:" in
  *":$install_dir:"*) exit 0 ;;
esac
line="export PATH=\"$install_dir:\$PATH\""
case "${SHELL:-}" in
  */zsh) rc="${ZDOTDIR:-$HOME}/.zshrc" ;;
  */bash) rc="$HOME/.bashrc" ;;
  */fish) rc="$HOME/.config/fish/config.fish"; line="fish_add_path \"$install_dir\"" ;;
  *) rc="$HOME/.profile" ;;
esac
if [ "$modify_path" = 1 ]; then
  mkdir -p "$(dirname "$rc")"
  if [ -f "$rc" ] && grep -qsF "$line" "$rc"; then
    say "$rc already puts $install_dir on PATH; open a new shell to use reasonix"
  else
    printf '\n# added by the reasonix installer\n%s\n' "$line" >> "$rc"
    say "added $install_dir to PATH in $rc; open a new shell (or run: $line)"
  fi
else
  say "to use reasonix, add it to your PATH:  $line"
fi
