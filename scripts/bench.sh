#!/usr/bin/env bash
# The benchmark in one command (method and results: docs/BENCHMARKS.md).
#
#   scripts/bench.sh            # the full run: about 10 minutes on a two-core machine
#   scripts/bench.sh --quick    # a smoke run: about 2 minutes, one round, short windows
#   scripts/bench.sh --no-db    # skip the lanes with API keys and the audit writer on PostgreSQL
#   scripts/bench.sh --head     # build the last commit (a clean snapshot in build-bench/src), not
#                               # the working tree, e.g. while others edit the same tree
#   scripts/bench.sh --only=sluice-pass+db,sluice-pass+otel
#                               # only these lanes (direct and nginx always run); Portkey, the
#                               # fleet and streaming only when named (portkey, fleet, streams)
#
# Installs what is missing (Debian packages, PostgreSQL through scripts/setup.sh, the Portkey
# gateway with npm into bench/node_modules), builds Sluice in Release into build-bench/ and the
# load generator into build-bench/loadgen, then runs bench/run.py, which starts every process on
# loopback ports, measures, and writes bench/out/results.{json,md} and bench/out/latency.png.
#
# Environment: SLUICE_BENCH_DATABASE_URL (default: database "sluice_bench" on the server of
# SLUICE_TEST_DATABASE_URL, dropped and created afresh on each run); SLUICE_JOBS (build jobs,
# default 1: the machine is shared); CCACHE_DIR (default .cache/ccache).
set -euo pipefail

bench_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_args=()
bench_db=1
bench_head=0
for arg in "$@"; do
  case ${arg} in
    --quick) bench_args+=(--quick) ;;
    --no-db) bench_db=0 ;;
    --head) bench_head=1 ;;
    --only=*) bench_args+=("${arg}") ;;
    -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) printf 'bench: unknown argument %s (try --help)\n' "${arg}" >&2; exit 2 ;;
  esac
done

bench_say() { printf '==> %s\n' "$*" >&2; }

# 1. Packages the benchmark needs beyond the build's: nginx (a target, and the static upstream),
#    gnuplot (the chart), python3 (the driver).
bench_packages=(nginx gnuplot-nox python3)
bench_missing=()
for package in "${bench_packages[@]}"; do
  dpkg-query -W -f='${db:Status-Status}' "${package}" 2>/dev/null | grep -qx installed || bench_missing+=("${package}")
done
if ((${#bench_missing[@]})); then
  bench_say "installing ${bench_missing[*]}"
  apt_get=(apt-get -q -o DPkg::Lock::Timeout=600)
  as_root=()
  [[ ${EUID} -eq 0 ]] || as_root=(sudo)
  "${as_root[@]}" "${apt_get[@]}" update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq --no-install-recommends \
    "${bench_missing[@]}" >/dev/null
fi

# 2. The build's packages and PostgreSQL, as for the tests (setup.sh skips its own build here).
SLUICE_SKIP_BUILD=1 source "${bench_repo}/scripts/setup.sh"
cd "${bench_repo}"

# 3. Sluice in Release, only the three programs the benchmark runs. g++ 12 at -O3 reports a
#    -Wrestrict false positive inside libstdc++'s char_traits (GCC bug 105329); it stays a
#    warning here so -Werror does not stop an optimised build.
: "${CCACHE_DIR:=${bench_repo}/.cache/ccache}"
export CCACHE_DIR
bench_build=${bench_repo}/build-bench
bench_source=${bench_repo}
if ((bench_head)); then
  bench_source=${bench_build}/src
  # Taken afresh only when something outside bench/, docs/ and scripts/ changed, so that a
  # commit to the benchmark itself does not rebuild the gateway.
  bench_tree=$(git -C "${bench_repo}" ls-tree HEAD | grep -Pv '\t(bench|docs|scripts)$' | sha1sum | cut -c1-40)
  if [[ $(cat "${bench_build}/src.tree" 2>/dev/null) != "${bench_tree}" ]]; then
    bench_say "snapshot of $(git -C "${bench_repo}" rev-parse --short HEAD) in build-bench/src"
    rm -rf "${bench_source}"
    mkdir -p "${bench_source}"
    git -C "${bench_repo}" archive HEAD | tar -x -C "${bench_source}"
    printf '%s\n' "${bench_tree}" >"${bench_build}/src.tree"
  fi
fi
bench_sluice_build=${bench_build}/sluice
bench_say "building Sluice (Release) in ${bench_sluice_build#"${bench_repo}/"}"
cmake -S "${bench_source}" -B "${bench_sluice_build}" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS=-Wno-error=restrict >/dev/null
cmake --build "${bench_sluice_build}" -j "${SLUICE_JOBS:-1}" --target sluice sluicectl sluice-mock-provider
bench_say "building the load generator in build-bench/loadgen"
cmake -S "${bench_repo}/bench/loadgen" -B "${bench_build}/loadgen" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "${bench_build}/loadgen" -j "${SLUICE_JOBS:-1}"

# 4. The Portkey gateway (versions pinned in bench/package-lock.json).
bench_stamp=${bench_repo}/bench/node_modules/.package-lock.json
if [[ ! -f ${bench_stamp} || ${bench_repo}/bench/package-lock.json -nt ${bench_stamp} ]]; then
  bench_say "installing the Portkey gateway in bench/node_modules"
  (cd "${bench_repo}/bench" && npm ci --no-audit --no-fund --loglevel=error)
  touch "${bench_stamp}"
fi

# 5. A database of its own, so the audit rows never mix with the tests'.
bench_db_args=()
if ((bench_db)); then
  if [[ -z ${SLUICE_BENCH_DATABASE_URL:-} ]]; then
    SLUICE_BENCH_DATABASE_URL=${SLUICE_TEST_DATABASE_URL%/*}/sluice_bench
    psql -X -q -v ON_ERROR_STOP=1 "${SLUICE_TEST_DATABASE_URL}" \
      -c 'DROP DATABASE IF EXISTS sluice_bench WITH (FORCE)' -c 'CREATE DATABASE sluice_bench' >/dev/null
  fi
  bench_db_args=(--database-url "${SLUICE_BENCH_DATABASE_URL}")
fi

# 6. Run. Thousands of concurrent streams need as many descriptors in every process.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
bench_say "running the benchmark (${bench_args[*]:-full})"
python3 "${bench_repo}/bench/run.py" "${bench_args[@]}" "${bench_db_args[@]}" \
  --bin "${bench_sluice_build}/bin" \
  --loadgen "${bench_build}/loadgen/sluice-loadgen" \
  --catalog "${bench_repo}/bench/catalog" \
  --portkey "${bench_repo}/bench/node_modules/@portkey-ai/gateway/build/start-server.js" \
  --out "${bench_repo}/bench/out"
cat "${bench_repo}/bench/out/results.md"
