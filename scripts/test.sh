#!/usr/bin/env bash
# Installs what is missing, starts PostgreSQL, builds, then runs the whole test suite with CTest
# and exits with CTest's status. Arguments go to ctest (scripts/test.sh -L unit, -R catalog, ...).
#
#   scripts/test.sh                       # build/
#   SLUICE_SANITIZE=1 scripts/test.sh     # build-asan/, AddressSanitizer + UBSan
#   SLUICE_SKIP_FUZZ=1 scripts/test.sh    # without the libFuzzer short run (scripts/fuzz.sh)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/setup.sh
source "${repo}/scripts/setup.sh"

if [[ ${SLUICE_SANITIZE:-0} == 1 ]]; then
  # Undefined behaviour fails the test instead of scrolling past.
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}
fi

sluice_say "testing (ctest in ${SLUICE_BUILD_DIR#"${repo}/"})"
# A short libFuzzer run of every wire decoder and the SSE parser (clang, ASan + UBSan) follows
# CTest, unless only some tests were asked for or SLUICE_SKIP_FUZZ=1; its build runs (niced)
# while CTest does, whose tests mostly wait on processes. scripts/fuzz.sh SECONDS runs it longer.
fuzz=0
if [[ $# -eq 0 && ${SLUICE_SKIP_FUZZ:-0} != 1 && ${SLUICE_SANITIZE:-0} != 1 ]]; then
  fuzz=1
  mkdir -p "${repo}/.cache"
  nice -n 10 "${repo}/scripts/fuzz.sh" --build >"${repo}/.cache/fuzz-build.log" 2>&1 &
  fuzz_build=$!
fi
status=0
ctest --test-dir "${SLUICE_BUILD_DIR}" --output-on-failure -j2 --timeout 300 "$@" || status=$?
if [[ ${fuzz} == 1 ]]; then
  if wait "${fuzz_build}"; then
    "${repo}/scripts/fuzz.sh" "${SLUICE_FUZZ_SECONDS:-10}" || status=1
  else
    echo "test: the libFuzzer build failed:" >&2
    tail -n 40 "${repo}/.cache/fuzz-build.log" >&2
    status=1
  fi
fi
# CI keeps the head and the tail of a long log: the assertions that failed come last again, so
# they are never in the part cut out.
log=${SLUICE_BUILD_DIR}/Testing/Temporary/LastTest.log
if [[ ${status} != 0 && -f ${log} ]]; then
  echo "test: what failed (from ${log#"${repo}/"}):" >&2
  grep -E 'error: in "|fatal error: in "|critical check|exception|Test timeout|Segmentation|Aborted|\*\*\*Failed|\*\*\*Exception|not ok |^ +error: ' \
    "${log}" | grep -vE 'Entering test|Leaving test' | sed 's/\x1b\[[0-9;]*m//g' | tail -n 60 >&2 || true
fi
exit "${status}"
