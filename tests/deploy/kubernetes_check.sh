#!/usr/bin/env bash
# Renders deploy/kubernetes with `kubectl kustomize` (Debian 12's kubectl 1.20 or any later one)
# and checks what a platform team relies on: the kinds, the probes, the drain timing, the
# security context, the spool volume, and that the catalog and secret references resolve.
# secrets.env is not committed: a scratch copy of the tree renders with secrets.env.example.
#
#   tests/deploy/kubernetes_check.sh SOURCE_DIR     (SLUICE_KUBECTL picks another kubectl)
set -uo pipefail

src=${1:?usage: kubernetes_check.sh SOURCE_DIR}
kubectl=${SLUICE_KUBECTL:-kubectl}
failures=0
fail() { printf 'kubernetes_check: FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }
pass() { printf 'kubernetes_check: ok: %s\n' "$*"; }

command -v "${kubectl}" >/dev/null 2>&1 || { echo "kubernetes_check: no ${kubectl} (scripts/setup.sh installs kubernetes-client)" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "${scratch}"' EXIT
mkdir -p "${scratch}/deploy"
cp -r "${src}/services" "${scratch}/services"
cp -r "${src}/deploy/kubernetes" "${scratch}/deploy/kubernetes"
cp "${src}/deploy/kubernetes/secrets.env.example" "${scratch}/deploy/kubernetes/secrets.env"
if ! "${kubectl}" kustomize "${scratch}/deploy/kubernetes" >"${scratch}/rendered.yaml" 2>"${scratch}/stderr"; then
  echo "kubernetes_check: ${kubectl} kustomize failed:" >&2
  cat "${scratch}/stderr" >&2
  exit 1
fi
pass "$("${kubectl}" version --client 2>/dev/null | head -n 1 | cut -c1-80) renders deploy/kubernetes"

# One file per rendered document, named KIND-NAME.
awk -v dir="${scratch}/docs" 'BEGIN { system("mkdir -p " dir); n = 0 }
  /^---$/ { n++; next } { print > (dir "/" n) }' "${scratch}/rendered.yaml"
declare -A doc=()
for file in "${scratch}"/docs/*; do
  kind=$(sed -n 's/^kind: //p' "${file}" | head -n 1)
  name=$(awk '/^metadata:/{ m = 1; next } m && /^  name: /{ print $2; exit }' "${file}")
  doc[${kind}/${name}]=${file}
done
kinds=$(printf '%s\n' "${!doc[@]}" | sort)
for want in StatefulSet/sluice Service/sluice Service/sluice-pods PodDisruptionBudget/sluice \
            HorizontalPodAutoscaler/sluice NetworkPolicy/sluice; do
  [[ -n ${doc[${want}]:-} ]] && pass "${want}" || fail "no ${want} in the rendered manifests (have: $(tr '\n' ' ' <<<"${kinds}"))"
done
generated() {  # the rendered name of the generated KIND/PREFIX-<hash>
  grep -x "$1-[a-z0-9]\{10\}" <<<"${kinds}" | head -n 1 | cut -d/ -f2
}
catalog_ai=$(generated ConfigMap/sluice-catalog-ai)
catalog_rules=$(generated ConfigMap/sluice-catalog-access-control)
secret=$(generated Secret/sluice-secrets)
[[ -n ${catalog_ai} && -n ${catalog_rules} && -n ${secret} ]] && pass "generated ${catalog_ai}, ${catalog_rules}, ${secret}" ||
  fail "the catalog ConfigMaps or the secret were not generated"

sts=${doc[StatefulSet/sluice]:-/dev/null}
block() {  # the lines nested under the first line "KEY:" of file $2 (by indentation)
  awk -v key="$1" '
    !inside && $0 ~ "^ *(- )?" key ":" { inside = 1; match($0, /^ *(- )?/); indent = RLENGTH; next }
    inside { match($0, /^ *(- )?/); if (RLENGTH <= indent && $0 !~ /^ *$/) exit; print }' "$2"
}
value() { sed -n "s/^ *$1: *\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" | head -n 1; }

grep -q '^  replicas: 3$' "${sts}" && pass "3 replicas" || fail "the StatefulSet does not ask for 3 replicas"
[[ $(block readinessProbe "${sts}" | value path) == /readyz ]] && pass "readinessProbe GET /readyz" || fail "readinessProbe is not GET /readyz"
[[ $(block livenessProbe "${sts}" | value path) == /healthz ]] && pass "livenessProbe GET /healthz" || fail "livenessProbe is not GET /healthz"
[[ -n $(block startupProbe "${sts}" | value path) ]] && pass "startupProbe" || fail "no startupProbe"
pre_stop=$(block preStop "${sts}" | grep -o '"sleep", *"[0-9]*"\|- sleep\|^ *- "\{0,1\}[0-9]\+"\{0,1\}$' | tr -dc '0-9 \n' | tr -s ' \n' ' ' | grep -o '[0-9]\+' | head -n 1)
drain=$(grep -A1 'name: SLUICE_DRAIN_SECONDS' "${sts}" | value value)
grace=$(value terminationGracePeriodSeconds <"${sts}")
if [[ -n ${pre_stop} && -n ${drain} && -n ${grace} ]] && ((grace > pre_stop + drain)); then
  pass "terminationGracePeriodSeconds ${grace} > preStop ${pre_stop} + drain ${drain}"
else
  fail "terminationGracePeriodSeconds (${grace:-none}) must exceed the preStop sleep (${pre_stop:-none}) plus SLUICE_DRAIN_SECONDS (${drain:-none})"
fi
grep -q 'runAsNonRoot: true' "${sts}" && grep -q 'readOnlyRootFilesystem: true' "${sts}" &&
  grep -q 'allowPrivilegeEscalation: false' "${sts}" && pass "non-root, read-only root, no privilege escalation" ||
  fail "the pod is not non-root with a read-only root filesystem"
for field in requests limits; do
  [[ -n $(block "${field}" "${sts}" | value cpu) && -n $(block "${field}" "${sts}" | value memory) ]] ||
    fail "no cpu and memory ${field}"
done
grep -A2 'name: SLUICE_WORKERS' "${sts}" | grep -q 'resourceFieldRef' && pass "SLUICE_WORKERS follows the CPU limit" ||
  fail "SLUICE_WORKERS is not tied to the CPU limit (the gateway would start a loop per node CPU)"
spool=$(grep -A1 'name: SLUICE_AUDIT_SPOOL' "${sts}" | value value)
[[ -n $(block volumeClaimTemplates "${sts}" | grep -x ' *name: spool') ]] &&
  grep -B0 -A1 'mountPath: /var/lib/sluice$' "${sts}" | grep -q 'name: spool' &&
  [[ ${spool} == /var/lib/sluice/* ]] && pass "the spool (${spool}) is on the volume claim 'spool'" ||
  fail "the audit spool is not on a persistent volume claim mounted at /var/lib/sluice"
for name in "${catalog_ai}" "${catalog_rules}" "${secret}"; do
  [[ -n ${name} ]] && grep -q "name: ${name}$" "${sts}" || fail "the StatefulSet does not reference ${name:-a generated object}"
done
for file in "${src}"/services/ai/*.yaml; do
  grep -q "^  $(basename "${file}"): |" "${doc[ConfigMap/${catalog_ai}]:-/dev/null}" ||
    fail "ConfigMap ${catalog_ai} lacks $(basename "${file}")"
done
grep -q '^  rules.yaml: |' "${doc[ConfigMap/${catalog_rules}]:-/dev/null}" || fail "ConfigMap ${catalog_rules} lacks rules.yaml"
hpa=${doc[HorizontalPodAutoscaler/sluice]:-/dev/null}
block scaleTargetRef "${hpa}" | grep -q 'kind: StatefulSet' && block resource "${hpa}" | grep -q 'name: cpu' &&
  pass "the HPA scales the StatefulSet on CPU" || fail "the HPA does not scale StatefulSet/sluice on CPU"
grep -q 'prometheus.io/scrape: "true"' "${sts}" || fail "no Prometheus scrape annotation"
# The operations port is not open to the cluster: every ingress rule naming it has a `from`, and
# the API port is the only one open to all.
policy=${doc[NetworkPolicy/sluice]:-/dev/null}
awk '/^  podSelector:/{ on = 1; next } on && /^  [a-z]/{ exit } on' "${policy}" |
  grep -q 'app.kubernetes.io/name: sluice' && grep -q -- '- Ingress' "${policy}" &&
  pass "NetworkPolicy/sluice selects the replicas' ingress" || fail "NetworkPolicy/sluice does not select the replicas"
rules=$(awk '/^  ingress:/{ on = 1; next } on && /^  [a-z]/{ exit } on' "${policy}" |
  awk '/^  - /{ n++ } { print > ("'"${scratch}"'/rule" n) }'; ls "${scratch}"/rule* 2>/dev/null)
ops_rules=0
ops_open=0
for rule in ${rules}; do
  if grep -q 'port: ops' "${rule}"; then
    ops_rules=$((ops_rules + 1))
    grep -q 'from:' "${rule}" || ops_open=1
  fi
done
if ((ops_open)); then
  fail "NetworkPolicy/sluice opens the ops port to every pod"
elif ((ops_rules == 0)); then
  fail "NetworkPolicy/sluice has no rule for the ops port (it would be closed to Prometheus)"
else
  pass "the ops port (9090) is reachable only from the policy's sources"
fi

if [[ ${failures} -gt 0 ]]; then
  echo "kubernetes_check: ${failures} failure(s)" >&2
  exit 1
fi
echo "kubernetes_check: all checks passed"
