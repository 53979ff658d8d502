#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 16, ASan + UBSan) into build-fuzz/ and runs each one for
# SECONDS (default 15) over a corpus seeded from tests/fixtures. Exits non-zero on the first
# crash, leak or sanitizer report; the crashing input is left in build-fuzz/crashes/.
#
#   scripts/fuzz.sh            # the short run scripts/test.sh does
#   scripts/fuzz.sh 600        # a long run (10 minutes per target)
#   scripts/fuzz.sh --build    # only build (scripts/test.sh builds while CTest runs)
#   scripts/fuzz.sh --keep 600 # a long run that then merges what it found into the kept corpus
#
# The kept corpus lives in tests/fuzz/corpus/<target>/ (minimised with -merge=1, so it holds only
# inputs that add coverage); every run starts from it, the fixtures and tests/fuzz/regressions.
# New inputs of a run go to build-fuzz/corpus/<target>/ and stay out of git unless --keep is given.
#
# clang 16 with Debian 12's libstdc++ 12: std::expected is hidden behind __cpp_concepts >= 202002,
# which clang 16 implements but does not yet announce, so the build announces it.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_only=0
keep=0
while [[ ${1:-} == --* ]]; do
  case $1 in
    --build) build_only=1 ;;
    --keep) keep=1 ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
seconds=${1:-15}
build=${repo}/build-fuzz
say() { printf '==> %s\n' "$*"; }

if ! command -v clang++-16 >/dev/null 2>&1 || [[ ! -d /usr/lib/llvm-16/lib/clang ]]; then
  say "installing clang-16 (libFuzzer)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q clang-16 libclang-rt-16-dev >/dev/null
fi

: "${CCACHE_DIR:=${repo}/.cache/ccache}"
export CCACHE_DIR CCACHE_BASEDIR=${repo}
say "building the libFuzzer targets in build-fuzz"
# -O1 with line tables, as libFuzzer's documentation suggests: quicker to build than -O2 -g (the
# build runs beside CTest in the test command), and sanitizer reports still name file and line.
CC=clang-16 CXX=clang++-16 cmake -S "${repo}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSLUICE_FUZZ=ON -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  "-DCMAKE_CXX_FLAGS=-Wno-macro-redefined -D__cpp_concepts=202002L" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" >/dev/null
targets=(request_decode sse stream_decode response_decode http1 json_parse event_stream mask restore mcp_event)
cmake --build "${build}" -j "${SLUICE_JOBS:-$(nproc)}" --target "${targets[@]/%/_fuzzer}"
[[ ${build_only} == 1 ]] && exit 0

mkdir -p "${build}/crashes"
status=0
for target in "${targets[@]}"; do
  corpus=${build}/corpus/${target}
  kept=${repo}/tests/fuzz/corpus/${target}
  mkdir -p "${corpus}" "${kept}"
  say "fuzzing ${target} for ${seconds}s"
  # New inputs go to the first directory; the fixtures only seed it.
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "${build}/bin/${target}_fuzzer" -max_total_time="${seconds}" -rss_limit_mb=2048 -max_len=262144 \
    -artifact_prefix="${build}/crashes/${target}-" -print_final_stats=1 \
    "${corpus}" "${kept}" "${repo}/tests/fixtures" "${repo}/tests/fuzz/regressions" 2>"${build}/${target}.log"; then
    echo "fuzz: ${target} failed; see ${build}/${target}.log and ${build}/crashes/" >&2
    tail -n 40 "${build}/${target}.log" >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "${build}/${target}.log" | sed "s/^/    ${target} /" || true
    if [[ ${keep} == 1 ]]; then
      # Only inputs that add coverage to what is kept join it; small files only (the repository).
      "${build}/bin/${target}_fuzzer" -merge=1 -max_len=8192 "${kept}" "${corpus}" \
        >/dev/null 2>"${build}/${target}.merge.log"
      echo "    ${target} kept corpus: $(find "${kept}" -type f | wc -l) files, $(( $(du -sb "${kept}" | cut -f1) / 1024 )) KiB"
    fi
  fi
done
exit "${status}"
