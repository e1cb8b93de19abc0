#!/usr/bin/env bash
# Puts a PgBouncer >= 1.21 on PATH (/usr/local/bin/pgbouncer) for the pooler tests (issue 25), built once per
# machine and cached: Debian 12's package is 1.18, which cannot run named prepared statements in transaction mode.
# The source is Debian 13's package (deb-src from trixie in a private sources list, so the machine's own apt stays
# on bookworm); ./configure --without-pam --without-systemd, about 70 s on two cores. Safe to run again: a cached or
# installed build is reused.
set -euo pipefail

VERSION_WANTED="1.21"
CACHE="${PGBOUNCER_CACHE:-/var/cache/basalt/pgbouncer}"

have_recent() {
  command -v pgbouncer >/dev/null || return 1
  local version
  version="$(pgbouncer --version 2>/dev/null | head -n 1 | sed -E 's/^[^0-9]*([0-9]+\.[0-9]+).*/\1/')"
  [ -n "$version" ] && [ "$(printf '%s\n%s\n' "$VERSION_WANTED" "$version" | sort -V | head -n 1)" = "$VERSION_WANTED" ]
}

if have_recent; then exit 0; fi
if [ -x "$CACHE/pgbouncer" ]; then
  install -m 0755 "$CACHE/pgbouncer" /usr/local/bin/pgbouncer
  have_recent && exit 0
fi

echo "pgbouncer: building from Debian 13's source package (once per machine)"
export DEBIAN_FRONTEND=noninteractive
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apt/lists/partial" "$work/apt/archives/partial" "$work/parts"
cat >"$work/parts/trixie.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_private=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/parts" -o "Dir::State::Lists=$work/apt/lists"
  -o "Dir::Cache::Archives=$work/apt/archives")
apt-get "${apt_private[@]}" update -qq
apt-get install -y -qq libevent-dev libc-ares-dev libssl-dev pkgconf make gcc dpkg-dev >/dev/null
(cd "$work" && apt-get "${apt_private[@]}" source -qq --download-only pgbouncer >/dev/null && dpkg-source -x --no-check ./pgbouncer_*.dsc src >/dev/null)
(cd "$work/src" && ./configure --without-pam --without-systemd >/dev/null && make -j"$(nproc)" >/dev/null)
mkdir -p "$CACHE"
install -m 0755 "$work/src/pgbouncer" "$CACHE/pgbouncer"
install -m 0755 "$CACHE/pgbouncer" /usr/local/bin/pgbouncer
pgbouncer --version | head -n 1
