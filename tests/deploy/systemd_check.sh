#!/usr/bin/env bash
# Checks deploy/systemd/sluice.service with `systemd-analyze verify` (on a copy whose ExecStart
# is the built gateway, since verify wants an executable there) and that the hardening and stop
# settings the docs promise are in it. Exit 77 (skipped) without systemd-analyze.
#
#   tests/deploy/systemd_check.sh SOURCE_DIR [BIN_DIR]
set -uo pipefail

src=${1:?usage: systemd_check.sh SOURCE_DIR [BIN_DIR]}
bin=${2:-${SLUICE_BIN_DIR:-${src}/build/bin}}
unit=${src}/deploy/systemd/sluice.service
failures=0
fail() { printf 'systemd_check: FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }

for line in 'ExecReload=/bin/kill -HUP $MAINPID' KillSignal=SIGTERM NoNewPrivileges=yes ProtectSystem=strict \
            PrivateTmp=yes MemoryDenyWriteExecute=yes SystemCallFilter=@system-service StateDirectory=sluice \
            DynamicUser=yes EnvironmentFile=/etc/sluice/sluice.env; do
  grep -qxF "${line}" "${unit}" || fail "no ${line}"
done
grep -q '^RestrictAddressFamilies=' "${unit}" || fail "no RestrictAddressFamilies"
stop=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)$/\1/p' "${unit}")
drain=$(sed -n 's/^Environment=SLUICE_DRAIN_SECONDS=\([0-9]*\)$/\1/p' "${unit}")
((${stop:-0} > ${drain:-30})) || fail "TimeoutStopSec=${stop:-unset} does not exceed the drain (${drain:-30} s)"

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "systemd_check: no systemd-analyze: verify skipped"
  ((failures == 0)) && exit 77
  exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "${scratch}"' EXIT
program=${bin}/sluice
[[ -x ${program} ]] || program=$(command -v true)
sed "s#^ExecStart=/usr/local/bin/sluice#ExecStart=${program}#" "${unit}" >"${scratch}/sluice.service"
if out=$(systemd-analyze verify "${scratch}/sluice.service" 2>&1) && [[ -z ${out} ]]; then
  echo "systemd_check: ok: systemd-analyze verify"
else
  fail "systemd-analyze verify: ${out}"
fi
if exposure=$(systemd-analyze security --offline=yes "${scratch}/sluice.service" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p') &&
   [[ -n ${exposure} ]]; then
  echo "systemd_check: exposure level ${exposure}"
  awk -v e="${exposure}" 'BEGIN { exit !(e <= 2.0) }' || fail "systemd-analyze security rates the unit ${exposure} (want at most 2.0)"
fi
((failures == 0)) || { echo "systemd_check: ${failures} failure(s)" >&2; exit 1; }
echo "systemd_check: all checks passed"
