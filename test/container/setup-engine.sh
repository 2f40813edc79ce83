#!/usr/bin/env bash
# The container engine for `npm run test:container` (CONTRACT §20), set up idempotently: every
# step is skipped when what it makes is already there, so a machine that keeps its state pays
# the set-up once. Prints, as its last lines, the settings the test reads (KEY=VALUE):
#   ENGINE=docker|podman        the command to run
#   CONTAINERS_CONF=FILE        (podman) the configuration below; export it for every podman call
#   COMPOSE=COMMAND             `docker compose` or `podman-compose`; empty when there is none
#
# 1. The engine: a `docker` whose daemon answers, else `podman`; with neither, as root on a
#    machine with apt, podman and runc are installed (RAMP_CONTAINER_ENGINE forces one).
# 2. podman's configuration, for machines such as the CI one (root without CAP_SYS_RESOURCE, a
#    hybrid cgroup layout, no systemd): podman's default ulimits ask for more than the hard limit
#    ("OCI permission denied"), so they are set to it; crun refuses the hybrid cgroup layout, so
#    runc; cgroupfs and a file events log, as there is no systemd.
# 3. The base image `node:20-slim`: pulled; when no registry answers, a stand-in tagged
#    docker.io/library/node:20-slim is made from this machine (debootstrap minbase bookworm, this
#    machine's node and npm, a `node` user with uid 1000, this machine's CA certificates, as the npm
#    registry may be reached through a TLS-intercepting proxy). A test artefact: never pushed or
#    shipped; kept in the engine's image store, so the next run finds it.
set -euo pipefail

BASE=docker.io/library/node:20-slim
log() { printf '[setup-engine] %s\n' "$*" >&2; }
fail() { log "$*"; exit 1; }

have() { command -v "$1" >/dev/null 2>&1; }

engine="${RAMP_CONTAINER_ENGINE:-}"
if [ -n "$engine" ]; then
  case "$engine" in docker | podman) ;; *) fail "RAMP_CONTAINER_ENGINE=$engine: docker or podman" ;; esac
  have "$engine" || fail "RAMP_CONTAINER_ENGINE=$engine: no such command"
  if [ "$engine" = docker ]; then timeout 10 docker info >/dev/null 2>&1 || fail 'RAMP_CONTAINER_ENGINE=docker: the docker daemon does not answer'; fi
else
  # A docker client alone is not enough (this machine has one and no daemon): its daemon must answer.
  if have docker && timeout 10 docker info >/dev/null 2>&1; then
    engine=docker
  elif have podman; then
    engine=podman
  elif [ "$(id -u)" = 0 ] && have apt-get; then
    log 'no docker or podman: installing podman and runc with apt'
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || fail 'apt-get update failed'
    apt-get install -y -qq podman runc podman-compose >&2 || fail 'apt-get install podman runc podman-compose failed'
    engine=podman
  else
    fail 'no container engine: install docker or podman (as root with apt, this script installs podman)'
  fi
fi

conf=''
if [ "$engine" = podman ]; then
  if [ -n "${CONTAINERS_CONF:-}" ]; then
    conf="$CONTAINERS_CONF"
  else
    dir="${RAMP_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ramp-sandbox-container}"
    mkdir -p "$dir"
    conf="$dir/containers.conf"
    hard="$(ulimit -Hn)"
    [ "$hard" = unlimited ] && hard=1048576
    runtime=''
    # crun (podman's default on Debian) refuses a hybrid cgroup layout; runc does not.
    if have runc; then runtime='runtime = "runc"'; fi
    next="$(cat <<EOF
# Written by test/container/setup-engine.sh (ramp-sandbox): see the comment there.
[containers]
default_ulimits = ["nofile=$hard:$hard", "nproc=32768:32768"]

[engine]
$runtime
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
)"
    if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$next" ]; then printf '%s\n' "$next" >"$conf"; fi
  fi
  export CONTAINERS_CONF="$conf"
fi

image_exists() {
  if [ "$engine" = podman ]; then podman image exists "$1"; else docker image inspect "$1" >/dev/null 2>&1; fi
}

if image_exists "$BASE"; then
  log "$BASE is there"
elif timeout 120 "$engine" pull -q "$BASE" >/dev/null 2>&1; then
  log "pulled $BASE"
else
  log "$BASE cannot be pulled: making a local stand-in from this machine (about a minute)"
  [ "$(id -u)" = 0 ] || fail 'the stand-in needs root (debootstrap)'
  if ! have debootstrap; then
    have apt-get || fail 'no debootstrap and no apt-get to install it'
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2 || {
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
    } || fail 'apt-get install debootstrap failed'
  fi
  node_bin="$(command -v node)"
  npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
  [ -f "$npm_dir/package.json" ] || fail "cannot find npm's folder (from $(command -v npm))"
  # The machine's Debian mirror, as apt uses it.
  mirror="$(grep -rhoE 'https?://[^ ]*debian\.org/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | head -1 || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
  root="$(mktemp -d /tmp/ramp-node-standin.XXXXXX)"
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase bookworm "$root" "$mirror" >/tmp/ramp-node-standin-debootstrap.log 2>&1 \
    || fail "debootstrap failed: see /tmp/ramp-node-standin-debootstrap.log"
  # What the official image has: node and npm under /usr/local, a `node` user with uid/gid 1000.
  install -m 0755 "$node_bin" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  echo 'node:x:1000:' >>"$root/etc/group"
  echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$root/etc/passwd"
  echo 'node:*:19000:0:99999:7:::' >>"$root/etc/shadow"
  mkdir -p "$root/home/node" && chown 1000:1000 "$root/home/node"
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  # The size of the real one (~190 MB): debian:bookworm-slim has no downloaded packages, apt
  # lists, docs, man pages or translations either.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
  tar -C "$root" -c . | "$engine" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$("$node_bin" --version | tr -d v)" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' \
    - "$BASE" >/dev/null || fail 'importing the stand-in failed'
  log "made the stand-in $BASE"
fi

compose=''
if [ "$engine" = docker ] && docker compose version >/dev/null 2>&1; then
  compose='docker compose'
elif [ "$engine" = podman ]; then
  if ! have podman-compose && [ "$(id -u)" = 0 ] && have apt-get; then
    log 'installing podman-compose with apt (the compose example)'
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman-compose >&2 || {
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman-compose >&2
    } || log 'apt-get install podman-compose failed'
  fi
  if have podman-compose; then compose='podman-compose'; fi
fi

echo "ENGINE=$engine"
if [ -n "$conf" ]; then echo "CONTAINERS_CONF=$conf"; fi
echo "COMPOSE=$compose"
