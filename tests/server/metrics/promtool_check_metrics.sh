#!/usr/bin/env bash
# Runs a program that prints a metrics exposition and checks it with `promtool check metrics`.
# Fails on a failing program, an empty exposition, a non-zero promtool status or any promtool
# output at all (lint warnings included).
#
#   promtool_check_metrics.sh PROGRAM
set -uo pipefail

program=${1:?usage: promtool_check_metrics.sh PROGRAM}
command -v promtool >/dev/null || { echo "promtool not found (Debian package prometheus)"; exit 1; }

exposition=$(mktemp)
trap 'rm -f "${exposition}"' EXIT

"${program}" >"${exposition}" || { echo "${program} failed"; exit 1; }
[[ -s ${exposition} ]] || { echo "${program} printed nothing"; exit 1; }

output=$(promtool check metrics <"${exposition}" 2>&1)
status=$?
if [[ ${status} -ne 0 || -n ${output} ]]; then
  echo "promtool check metrics: status ${status}"
  printf '%s\n' "${output}"
  exit 1
fi
echo "promtool check metrics: clean ($(grep -c '^# TYPE ' "${exposition}") families, $(grep -vc '^#' "${exposition}") samples)"
