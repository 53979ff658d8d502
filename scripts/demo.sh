#!/usr/bin/env bash
# Runs Sluice on the shipped catalog (services/) against the bundled mock provider and a local
# PostgreSQL, prints the base URL and curl lines that answer at once, and keeps both running
# until Ctrl-C, which stops everything this script started.
#
#   scripts/demo.sh                           # as root on Debian 12; installs and builds first
#   SLUICE_LISTEN=127.0.0.1:0 scripts/demo.sh # any free port
#
# Provider URLs and keys already set in the environment win over the mock's, so the same
# command can run against a real provider.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/setup.sh
source "${repo}/scripts/setup.sh"
cd "${repo}"

bin=${SLUICE_BUILD_DIR}/bin
run_dir=${SLUICE_BUILD_DIR}/demo
key_file=${SLUICE_BUILD_DIR}/demo-api-key
mkdir -p "${run_dir}"
for program in sluice-mock-provider sluice; do
  [[ -x ${bin}/${program} ]] || { echo "demo: ${bin}/${program} was not built" >&2; exit 1; }
done

pids=()
# shellcheck disable=SC2317  # called by the trap
stop_children() {
  trap - EXIT INT TERM HUP
  local pid deadline=$((SECONDS + 35))
  for pid in "${pids[@]}"; do kill -TERM "${pid}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    while kill -0 "${pid}" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
  done
  if [[ ${SLUICE_POSTGRES_STARTED} == 1 ]]; then
    sluice_say "stopping PostgreSQL"
    sluice_stop_postgres || true
  fi
}
trap stop_children EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP  # a closed terminal or a supervisor's hang-up stops what the demo started too

# Prints HOST:PORT once the program behind PID has written "listening on HOST:PORT" to FILE.
wait_listening() {
  local pid=$1 file=$2 name=$3 line deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    if line=$(grep -s -m 1 -E '^listening on [^ ]+:[0-9]+$' "${file}"); then
      printf '%s\n' "${line#listening on }"
      return 0
    fi
    if ! kill -0 "${pid}" 2>/dev/null; then
      echo "demo: ${name} exited before it was ready" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "demo: ${name} did not report 'listening on' within 30 s" >&2
  return 1
}

sluice_say "starting the mock provider"
"${bin}/sluice-mock-provider" --listen 127.0.0.1:0 \
  >"${run_dir}/mock-provider.out" 2>"${run_dir}/mock-provider.log" &
pids+=($!)
mock=http://$(wait_listening "${pids[-1]}" "${run_dir}/mock-provider.out" sluice-mock-provider) || {
  cat "${run_dir}/mock-provider.log" >&2
  exit 1
}

# The shipped catalog reads these; values the caller already set are kept.
export ANTHROPIC_BASE_URL=${ANTHROPIC_BASE_URL:-${mock}}
export DEEPSEEK_BASE_URL=${DEEPSEEK_BASE_URL:-${mock}/v1}
export OPENCODE_GO_CHAT_BASE_URL=${OPENCODE_GO_CHAT_BASE_URL:-${mock}/v1}
export OPENCODE_GO_MESSAGES_BASE_URL=${OPENCODE_GO_MESSAGES_BASE_URL:-${mock}}
export OPENAI_BASE_URL=${OPENAI_BASE_URL:-${mock}/v1}
export GEMINI_BASE_URL=${GEMINI_BASE_URL:-${mock}}
export ANTHROPIC_API_KEY=${ANTHROPIC_API_KEY:-mock-anthropic-key}
export DEEPSEEK_API_KEY=${DEEPSEEK_API_KEY:-mock-deepseek-key}
export OPENAI_API_KEY=${OPENAI_API_KEY:-mock-openai-key}
export GEMINI_API_KEY=${GEMINI_API_KEY:-mock-gemini-key}
# Bedrock: the mock checks SigV4 signatures with these keys (its --aws-* defaults).
export BEDROCK_BASE_URL=${BEDROCK_BASE_URL:-${mock}}
export BEDROCK_ACCESS_KEY_ID=${BEDROCK_ACCESS_KEY_ID:-AKIDSLUICEMOCK}
export BEDROCK_SECRET_ACCESS_KEY=${BEDROCK_SECRET_ACCESS_KEY:-sluice-mock-secret-access-key}
# Vertex AI: tokens from the mock's metadata server; Azure OpenAI: an api-key.
export VERTEX_BASE_URL=${VERTEX_BASE_URL:-${mock}}
export VERTEX_PROJECT=${VERTEX_PROJECT:-acme-ml}
export GCE_METADATA_HOST=${GCE_METADATA_HOST:-${mock#http://}}
# The catalog's example MCP server (providers.yaml `github`): the mock's own small MCP server.
export GITHUB_MCP_URL=${GITHUB_MCP_URL:-${mock}/mcp}
export GITHUB_MCP_TOKEN=${GITHUB_MCP_TOKEN:-mock-github-token}
export AZURE_OPENAI_BASE_URL=${AZURE_OPENAI_BASE_URL:-${mock}}
export AZURE_OPENAI_API_KEY=${AZURE_OPENAI_API_KEY:-mock-azure-key}
# The key personal credentials are sealed with (docs/identity.md): kept beside the demo's API key
# so `sluicectl credentials set` works here and keys stored in one run open in the next.
master_key_file=${SLUICE_BUILD_DIR}/demo-master-key
if [[ -z ${SLUICE_MASTER_KEY:-} && -z ${SLUICE_MASTER_KEY_FILE:-} ]]; then
  if [[ ! -s ${master_key_file} ]]; then
    (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"${master_key_file}")
  fi
  export SLUICE_MASTER_KEY_FILE=${master_key_file}
fi

sluice_say "starting Sluice (its JSON log follows on stderr)"
"${bin}/sluice" --services "${repo}/services" --listen "${SLUICE_LISTEN:-127.0.0.1:8080}" \
  --database-url "${SLUICE_TEST_DATABASE_URL}" >"${run_dir}/sluice.out" &
pids+=($!)
address=$(wait_listening "${pids[-1]}" "${run_dir}/sluice.out" sluice) || {
  echo "demo: see its log above; when the port is taken, SLUICE_LISTEN=127.0.0.1:0 picks a free one" >&2
  exit 1
}
case ${address} in
  0.0.0.0:* | \[::\]:*) address=127.0.0.1:${address##*:} ;;
esac
base=http://${address}

# Prints the HTTP status of GET /v1/models with KEY.
models_status() {
  curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -H "x-api-key: $1" "${base}/v1/models" || true
}

# A demo key: the caller's, else the saved one while it still works, else a new one when
# sluicectl can make keys.
key=${SLUICE_DEMO_API_KEY:-}
if [[ -z ${key} && -s ${key_file} ]]; then
  key=$(<"${key_file}")
  case $(models_status "${key}") in 401 | 403) key= ;; esac
fi
# CLI11 answers --help with status 0 even for a subcommand it lacks: read what the help lists.
if [[ -z ${key} && -x ${bin}/sluicectl ]] && help=$("${bin}/sluicectl" keys --help 2>&1) &&
   grep -qE '^ *create( |$)' <<<"${help}"; then
  sluicectl=("${bin}/sluicectl" --database-url "${SLUICE_TEST_DATABASE_URL}" --services "${repo}/services")
  "${sluicectl[@]}" users add demo --role admin >/dev/null 2>&1 || true  # fails when demo exists
  if key=$("${sluicectl[@]}" keys create demo --name demo | tail -n 1) && [[ -n ${key} ]]; then
    (umask 077 && printf '%s\n' "${key}" >"${key_file}")
  else
    echo "demo: could not create a demo API key; continuing without one" >&2
    key=
  fi
fi

chat_body='{"model":"claude-sonnet-5-5","messages":[{"role":"user","content":"Say hello in five words."}]}'
messages_body='{"model":"claude-sonnet-5-5","max_tokens":256,"messages":[{"role":"user","content":"Say hello in five words."}]}'
chat_headers=(-H 'content-type: application/json')
messages_headers=(-H 'content-type: application/json' -H 'anthropic-version: 2023-06-01')
if [[ -n ${key} ]]; then
  chat_headers+=(-H "authorization: Bearer ${key}")
  messages_headers+=(-H "x-api-key: ${key}")
fi

# Prints a curl command that can be pasted into a shell (no argument holds a single quote).
print_curl() {
  local path=$1 body=$2
  shift 2
  printf '  curl -sS %s' "${base}${path}"
  while (($#)); do printf ' \\\n    %s %s' "$1" "'$2'"; shift 2; done
  printf ' \\\n    -d %s\n' "'${body}'"
}

sluice_say "asking the gateway once (POST /v1/messages)"
status=0
curl -sS --max-time 30 -w '\n(HTTP %{http_code})\n' "${messages_headers[@]}" -d "${messages_body}" \
  "${base}/v1/messages" || status=$?
((status == 0)) || echo "demo: curl failed with exit status ${status}" >&2

cat <<EOF

Sluice is running at ${base}
  catalog:        ${repo}/services
  mock provider:  ${mock}   (log: ${run_dir#"${repo}/"}/mock-provider.log)
  database:       ${SLUICE_TEST_DATABASE_URL}
EOF
if [[ -n ${key} ]]; then
  printf '  API key:        %s   (saved in %s)\n' "${key}" "${key_file#"${repo}/"}"
  printf '  admin console:  %s/admin   (sign in with the API key: member demo is an admin)\n' "${base}"
fi
printf '\nAnthropic Messages:\n'
print_curl /v1/messages "${messages_body}" "${messages_headers[@]}"
printf 'OpenAI Chat Completions:\n'
print_curl /v1/chat/completions "${chat_body}" "${chat_headers[@]}"
printf 'MCP tools, served by the mock provider as GitHub (Claude Code: claude mcp add --transport http sluice %s/mcp --header "Authorization: Bearer <key>"):\n' "${base}"
print_curl /mcp/github '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' \
  "${chat_headers[@]}" -H 'Accept: application/json, text/event-stream'
printf 'A personal provider key (models such as go-kimi-k3 answer 424 personal_key_missing without one):\n'
if [[ -n ${SLUICE_MASTER_KEY_FILE:-} ]]; then master="SLUICE_MASTER_KEY_FILE=${SLUICE_MASTER_KEY_FILE} "; else master=; fi
printf '  %s%s/sluicectl --database-url %s --services %s \\\n    credentials set opencode-go --user demo\n' \
  "${master}" "${bin}" "'${SLUICE_TEST_DATABASE_URL}'" "${repo}/services"
if [[ ${SLUICE_POSTGRES_STARTED} == 1 ]]; then
  printf '\nCtrl-C stops the gateway, the mock provider and PostgreSQL.\n'
else
  printf '\nCtrl-C stops the gateway and the mock provider.\n'
fi

status=0
wait -n "${pids[@]}" || status=$?
echo "demo: a child process exited (status ${status}); stopping the rest" >&2
exit $((status == 0 ? 1 : status))
