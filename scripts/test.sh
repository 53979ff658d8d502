#!/usr/bin/env bash
# Installs what is missing, starts PostgreSQL, builds, then runs the whole test suite with CTest
# and exits with CTest's status. Arguments go to ctest (scripts/test.sh -L unit, -R catalog, ...).
#
#   scripts/test.sh                       # build/
#   SLUICE_SANITIZE=1 scripts/test.sh     # build-asan/, AddressSanitizer + UBSan
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
exec ctest --test-dir "${SLUICE_BUILD_DIR}" --output-on-failure -j2 --timeout 300 "$@"
