#!/usr/bin/env bash
# Prepares a Debian 12 machine to build, run and test Sluice, then builds it.
#
#   scripts/setup.sh                 # as root; safe to run again (it only does what is missing)
#   source scripts/setup.sh          # the same, and the caller keeps the exported variables
#
# Steps: install the missing Debian packages; start PostgreSQL 15 (cluster "main") without
# systemd and make sure role and database "sluice" exist; install the Node test clients of
# tests/e2e when that folder has a package.json; configure and build with CMake/Ninja.
#
# Exports: SLUICE_TEST_DATABASE_URL, SLUICE_BUILD_DIR, CCACHE_DIR (each unless already set).
# Sets SLUICE_POSTGRES_STARTED=1 when this run started the cluster.
# Switches: SLUICE_SANITIZE=1 builds into build-asan with -DSLUICE_SANITIZE=ON (the build
#           directory is build/ or build-asan/ unless SLUICE_BUILD_DIR names another);
#           SLUICE_SKIP_BUILD=1 skips configure and build; SLUICE_JOBS=N overrides nproc.
set -euo pipefail

sluice_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

sluice_packages=(
  build-essential g++ cmake ninja-build ccache pkg-config
  libpoco-dev libyaml-cpp-dev libpqxx-dev libssl-dev nlohmann-json3-dev libboost-test-dev libboost-context-dev libcli11-dev libjemalloc-dev prometheus-cpp-dev zlib1g-dev libcjose-dev libjansson-dev
  postgresql postgresql-client curl ca-certificates
  tzdata  # calendar quota periods read the system tz database
  prometheus  # promtool checks the metrics exposition
  nginx  # the fleet tests put three replicas behind it
  nodejs npm chromium  # the e2e tests drive the gateway with the official SDKs and a browser
)
# `kubectl kustomize` renders deploy/kubernetes in the test command (tests/deploy). Any kubectl
# will do: one from Kubernetes' own apt repository (package kubectl) owns /usr/bin/kubectl too, and
# Debian's kubernetes-client would then fail to install over it.
command -v kubectl >/dev/null 2>&1 || sluice_packages+=(kubernetes-client)
sluice_pg_version=15
sluice_pg_cluster=main
SLUICE_POSTGRES_STARTED=0

sluice_say() { printf '==> %s\n' "$*"; }
sluice_die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, else through sudo when there is one.
sluice_as_root() {
  if [[ ${EUID} -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    sluice_die "this step needs root: $*"
  fi
}

# Runs a command as the postgres user, from a directory that user can read.
sluice_as_postgres() {
  if [[ ${EUID} -eq 0 ]]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && sudo -u postgres -- "$@")
  fi
}

# A package counts as present when it is installed or an installed package provides it (a
# nodejs that bundles npm provides "npm"; asking apt for Debian's npm would then remove it).
sluice_missing_packages() {
  local -A present=()
  local status name provides item
  local -a items
  while IFS=$'\t' read -r status name provides; do
    [[ ${status} == installed ]] || continue
    present[${name}]=1
    IFS=',' read -ra items <<<"${provides}"
    for item in "${items[@]}"; do
      read -r item _ <<<"${item}"  # "npm" from " npm" or "foo (= 1.0)"
      [[ -n ${item} ]] && present[${item}]=1
    done
  done < <(dpkg-query -W -f='${db:Status-Status}\t${Package}\t${Provides}\n' 2>/dev/null)
  for name in "${sluice_packages[@]}"; do
    [[ -n ${present[${name}]:-} ]] || printf '%s\n' "${name}"
  done
}

sluice_install_packages() {
  local -a missing
  mapfile -t missing < <(sluice_missing_packages)
  if [[ ${#missing[@]} -eq 0 ]]; then
    sluice_say "packages: all present"
    return
  fi
  sluice_say "installing packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  local -a apt=(apt-get -q -o DPkg::Lock::Timeout=600)
  sluice_as_root "${apt[@]}" update -qq
  sluice_as_root env DEBIAN_FRONTEND=noninteractive \
    "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

sluice_cluster_field() {  # prints column $1 of pg_lsclusters for our cluster (3 = port, 4 = status)
  pg_lsclusters -h 2>/dev/null |
    awk -v v="${sluice_pg_version}" -v c="${sluice_pg_cluster}" -v f="$1" '$1 == v && $2 == c { print $f }'
}

sluice_start_postgres() {
  sluice_say "starting PostgreSQL ${sluice_pg_version}"
  if [[ -z $(sluice_cluster_field 1) ]]; then
    sluice_as_root pg_createcluster "${sluice_pg_version}" "${sluice_pg_cluster}" >/dev/null
  fi
  if [[ $(sluice_cluster_field 4) != online ]]; then
    sluice_as_root pg_ctlcluster "${sluice_pg_version}" "${sluice_pg_cluster}" start
    # shellcheck disable=SC2034  # scripts/demo.sh stops what it started
    SLUICE_POSTGRES_STARTED=1
  fi
  local port
  port=$(sluice_cluster_field 3)
  local deadline=$((SECONDS + 60))
  until pg_isready -q -h 127.0.0.1 -p "${port}"; do
    ((SECONDS < deadline)) || sluice_die "PostgreSQL did not accept connections on 127.0.0.1:${port} within 60 s"
    sleep 0.5
  done

  local psql=(psql -X -q -v ON_ERROR_STOP=1 -p "${port}" -d postgres -tA)
  # The role is brought to the state the tests expect even when it already existed.
  sluice_as_postgres "${psql[@]}" -c "
    DO \$\$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sluice') THEN
        CREATE ROLE sluice;
      END IF;
    END \$\$;
    ALTER ROLE sluice LOGIN CREATEDB PASSWORD 'sluice';" >/dev/null
  if [[ -z $(sluice_as_postgres "${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'sluice'") ]]; then
    sluice_as_postgres "${psql[@]}" -c "CREATE DATABASE sluice OWNER sluice" >/dev/null
  fi

  : "${SLUICE_TEST_DATABASE_URL:=postgresql://sluice:sluice@127.0.0.1:${port}/sluice}"
  export SLUICE_TEST_DATABASE_URL
  psql -X -q -tA "${SLUICE_TEST_DATABASE_URL}" -c 'SELECT 1' >/dev/null ||
    sluice_die "cannot connect to ${SLUICE_TEST_DATABASE_URL}"
}

sluice_stop_postgres() {
  sluice_as_root pg_ctlcluster "${sluice_pg_version}" "${sluice_pg_cluster}" stop
}

sluice_build() {
  local -a options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  if [[ ${SLUICE_SANITIZE:-0} == 1 ]]; then
    : "${SLUICE_BUILD_DIR:=${sluice_repo}/build-asan}"
    options+=(-DSLUICE_SANITIZE=ON)
  else
    : "${SLUICE_BUILD_DIR:=${sluice_repo}/build}"
  fi
  export SLUICE_BUILD_DIR
  : "${CCACHE_DIR:=${sluice_repo}/.cache/ccache}"
  export CCACHE_DIR
  if [[ ${SLUICE_SKIP_BUILD:-0} == 1 ]]; then
    sluice_say "building: skipped (SLUICE_SKIP_BUILD=1)"
    return
  fi
  sluice_say "building in ${SLUICE_BUILD_DIR#"${sluice_repo}/"}"
  # A tree configured earlier with another generator cannot be reconfigured for Ninja.
  local cache=${SLUICE_BUILD_DIR}/CMakeCache.txt
  if [[ -f ${cache} ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "${cache}"; then
    rm -rf "${cache}" "${SLUICE_BUILD_DIR}/CMakeFiles"
  fi
  cmake -S "${sluice_repo}" -B "${SLUICE_BUILD_DIR}" -G Ninja "${options[@]}" >/dev/null
  cmake --build "${SLUICE_BUILD_DIR}" -j "${SLUICE_JOBS:-$(nproc)}"
}

sluice_install_node_clients() {
  local dir=${sluice_repo}/tests/e2e
  [[ -f ${dir}/package.json ]] || return 0
  # The browser is Debian's chromium; the SDKs' own browser downloads are not reachable.
  export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
  : "${PUPPETEER_EXECUTABLE_PATH:=$(command -v chromium || true)}"
  export PUPPETEER_EXECUTABLE_PATH
  local stamp=${dir}/node_modules/.package-lock.json
  if [[ -f ${stamp} && ${stamp} -nt ${dir}/package.json &&
        ( ! -f ${dir}/package-lock.json || ${stamp} -nt ${dir}/package-lock.json ) ]]; then
    return 0
  fi
  sluice_say "installing Node test clients in tests/e2e"
  if [[ -f ${dir}/package-lock.json ]]; then
    (cd "${dir}" && npm ci --no-audit --no-fund --loglevel=error)
  else
    (cd "${dir}" && npm install --no-audit --no-fund --loglevel=error)
  fi
  # npm install may write package-lock.json after its stamp; the next run must still skip.
  if [[ -f ${stamp} ]]; then touch "${stamp}"; fi
}

sluice_setup() {
  cd "${sluice_repo}"
  sluice_install_packages
  sluice_start_postgres
  sluice_install_node_clients  # before configuring, so CMake sees the installed clients
  sluice_build
}

sluice_setup
