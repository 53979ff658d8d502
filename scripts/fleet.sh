#!/usr/bin/env bash
# A fleet on loopback: installs what is missing, starts PostgreSQL, builds, then runs tests/fleet/
# (three replicas of sluice on one PostgreSQL behind nginx: sessions and revocation across
# replicas, a quota burst, catalog versions, a rolling restart and a SIGKILL under load, with the
# audit rows counted). The test command (scripts/test.sh) runs the same tests in their short mode.
#
#   scripts/fleet.sh                 # the short mode
#   scripts/fleet.sh --soak 30m      # plus the soak: 30 minutes of load with rolling restarts,
#                                    # RSS and latency every 10 s to build/fleet-soak/soak.csv (.png)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
soak_seconds=0
if [[ ${1:-} == --soak ]]; then
  duration=${2:?"--soak needs a duration: 30m, 2h, 600s"}
  case ${duration} in
    *h) soak_seconds=$(( ${duration%h} * 3600 )) ;;
    *m) soak_seconds=$(( ${duration%m} * 60 )) ;;
    *s) soak_seconds=${duration%s} ;;
    *) soak_seconds=${duration} ;;
  esac
fi
# shellcheck source=scripts/setup.sh
source "${repo}/scripts/setup.sh"
export SLUICE_BIN_DIR=${SLUICE_BUILD_DIR}/bin SLUICE_SOURCE_DIR=${repo}
export PATH=/usr/sbin:${PATH}
if [[ ${soak_seconds} -gt 0 ]]; then
  export SLUICE_FLEET_SOAK_SECONDS=${soak_seconds} SLUICE_FLEET_OUT=${SLUICE_BUILD_DIR}/fleet-soak
  sluice_say "fleet: the short tests, then a soak of ${soak_seconds} s (figures in ${SLUICE_FLEET_OUT})"
fi
cd "${repo}/tests/fleet"
exec node --test --test-concurrency=1 ./*.test.mjs
