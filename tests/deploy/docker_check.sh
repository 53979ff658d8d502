#!/usr/bin/env bash
# Checks deploy/docker without Docker: the Dockerfile's shape (a Debian 12 build stage and a
# bookworm-slim runtime stage, a non-root numeric USER, a /healthz HEALTHCHECK, the spool volume),
# that its build stage installs exactly scripts/setup.sh's build packages, that every runtime
# package exists in the Debian archive apt knows and ships a library the binaries link (and that
# every library `ldd` lists for them comes with those packages), and that compose.yaml and
# nginx.conf agree (nginx -t when nginx is installed).
#
#   tests/deploy/docker_check.sh SOURCE_DIR [BIN_DIR]
#
# Exit 0 when everything holds, 1 with every failure listed, 77 (skipped) when the binaries are
# not built, after the checks that do not need them.
set -uo pipefail

src=${1:?usage: docker_check.sh SOURCE_DIR [BIN_DIR]}
bin=${2:-${SLUICE_BIN_DIR:-${src}/build/bin}}
dockerfile=${src}/deploy/docker/Dockerfile
compose=${src}/deploy/docker/compose.yaml
nginx_conf=${src}/deploy/docker/nginx.conf
failures=0
fail() { printf 'docker_check: FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }
pass() { printf 'docker_check: ok: %s\n' "$*"; }

# The Dockerfile's instructions, one a line: continuation lines joined, comments dropped.
instructions=$(sed -e '/^[[:space:]]*#/d' "${dockerfile}" | sed -e ':a' -e '/\\$/{N; s/\\\n/ /; ba' -e '}' |
  sed -e 's/[[:space:]]\+/ /g' -e '/^ *$/d')
stage_of() {  # the instructions of stage $1 (by its AS name)
  awk -v want="$1" '/^FROM /{ stage = ($NF == want) } stage' <<<"${instructions}"
}
apt_packages() {  # the packages an `apt-get install` of these instructions names, sorted
  grep -o 'apt-get install [^&]*' | tr ' ' '\n' | grep -v -e '^-' -e '^apt-get$' -e '^install$' -e '^$' | sort -u
}

# 1. Stages.
froms=$(grep '^FROM ' <<<"${instructions}")
[[ $(wc -l <<<"${froms}") == 2 ]] || fail "two stages expected, found: ${froms}"
grep -qx 'FROM debian:bookworm AS build' <<<"${froms}" || fail "no 'FROM debian:bookworm AS build'"
[[ $(tail -n 1 <<<"${froms}") == 'FROM debian:bookworm-slim AS runtime' ]] ||
  fail "the last stage is not 'FROM debian:bookworm-slim AS runtime'"
build=$(stage_of build)
runtime=$(stage_of runtime)

# 2. The runtime stage.
user=$(grep '^USER ' <<<"${runtime}" | tail -n 1 | cut -d' ' -f2)
uid=${user%%:*}
if [[ -z ${user} ]]; then
  fail "the runtime stage sets no USER (it would run as root)"
elif [[ ! ${uid} =~ ^[0-9]+$ || ${uid} == 0 ]]; then
  fail "USER ${user}: a numeric uid other than 0 is needed (Kubernetes' runAsNonRoot checks it)"
else
  pass "USER ${user}"
fi
grep -q '^HEALTHCHECK .*CMD .*/healthz' <<<"${runtime}" && pass "HEALTHCHECK on /healthz" ||
  fail "no HEALTHCHECK calling /healthz"
if grep -q '^HEALTHCHECK .*curl\|^HEALTHCHECK .*wget' <<<"${runtime}" && ! grep -qw 'curl\|wget' <<<"$(apt_packages <<<"${runtime}")"; then
  fail "the HEALTHCHECK uses a tool the runtime stage does not install"
fi
grep -qx 'ENTRYPOINT \["sluice"\]' <<<"${runtime}" && pass 'ENTRYPOINT ["sluice"]' || fail 'no ENTRYPOINT ["sluice"]'
grep -q '^VOLUME .*/var/lib/sluice' <<<"${runtime}" && pass "VOLUME /var/lib/sluice" || fail "the spool directory /var/lib/sluice is not a VOLUME"
grep -q '^EXPOSE 8080' <<<"${runtime}" || fail "no EXPOSE 8080"
for program in sluice sluicectl sluice-mock-provider; do
  grep -q "^COPY --from=build .*/build/bin/${program}[ ]" <<<"${runtime}" || fail "the runtime stage does not copy ${program}"
  grep -q "cmake --build .*--target .*${program}\b" <<<"${build}" || fail "the build stage does not build ${program}"
done
while read -r source; do
  [[ -e ${src}/${source} ]] || fail "COPY ${source}: not in the repository"
done < <(grep '^COPY ' <<<"${instructions}" | grep -v -- '--from=' | awk '{ for (i = 2; i < NF; i++) print $i }')

# 3. The build stage installs what scripts/setup.sh installs to build (its first two lines) and
#    configures as it does.
setup_build=$(awk '/^sluice_packages=\(/{ on = 1; next } on && n < 2 { sub(/#.*/, ""); print; n++ }' \
  "${src}/scripts/setup.sh" | tr ' ' '\n' | sed '/^$/d' | sort -u)
docker_build=$(apt_packages <<<"${build}")
if [[ ${setup_build} == "${docker_build}" ]]; then
  pass "build packages = scripts/setup.sh's ($(wc -l <<<"${docker_build}") packages)"
else
  fail "build packages differ from scripts/setup.sh's: $(diff <(echo "${setup_build}") <(echo "${docker_build}") | grep '^[<>]' | tr '\n' ' ')"
fi
grep -q 'cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo' <<<"${build}" ||
  fail "the build stage does not configure as scripts/setup.sh does (-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)"

# 4. Runtime packages exist in the archive.
runtime_packages=$(apt_packages <<<"${runtime}")
# One apt-cache call (each reads the whole package cache): the name and version of each found.
known=$(apt-cache show --no-all-versions ${runtime_packages} 2>/dev/null |
  awk '/^Package: /{ p = $2 } /^Version: /{ print p, $2 }')
for package in ${runtime_packages}; do
  version=$(awk -v p="${package}" '$1 == p { print $2; exit }' <<<"${known}")
  if [[ -n ${version} ]]; then
    pass "runtime package ${package} is in the archive (${version})"
  else
    fail "runtime package ${package}: apt-cache show knows no such package"
  fi
done

# 5. compose.yaml and nginx.conf.
for service in postgres migrate mock gateway-1 gateway-2 nginx; do
  grep -q "^  ${service}:" "${compose}" || fail "compose.yaml has no service ${service}"
done
grep -q 'image: postgres:15' "${compose}" || fail "compose.yaml does not run PostgreSQL 15"
for n in 1 2; do
  grep -q "^      - gateway-${n}-spool:/var/lib/sluice" "${compose}" || fail "gateway-${n} has no spool volume of its own"
  grep -q "server gateway-${n}:8080 .*max_fails=" "${nginx_conf}" || fail "nginx.conf has no passive-checked upstream gateway-${n}:8080"
done
grep -q 'proxy_buffering off;' "${nginx_conf}" || fail "nginx.conf buffers responses (streams need proxy_buffering off)"
grep -Eq 'proxy_next_upstream .*http_50[23]' "${nginx_conf}" && fail "nginx.conf retries the gateway's own 502/503 answers (multiplies load on failing providers)"
grep -q 'proxy_next_upstream error non_idempotent;' "${nginx_conf}" || fail "nginx.conf must retry broken connections, POSTs included (docs/deploying.md)"
if command -v nginx >/dev/null 2>&1; then
  scratch=$(mktemp -d)
  trap 'rm -rf "${scratch}"' EXIT
  sed -e 's/gateway-[0-9]*:8080/127.0.0.1:8080/' -e 's/listen 80;/listen 127.0.0.1:1;/' "${nginx_conf}" >"${scratch}/nginx.conf"
  if out=$(nginx -t -q -c "${scratch}/nginx.conf" -g "pid ${scratch}/nginx.pid; error_log ${scratch}/error.log;" 2>&1); then
    pass "nginx -t accepts nginx.conf"
  else
    fail "nginx -t: ${out}"
  fi
fi

# 6. The libraries the binaries link come with the runtime packages: each package the binaries
#    NEED directly is named, each named package (but ca-certificates, tzdata) ships one of those, and
#    every library ldd resolves belongs to a package the named ones pull in.
missing_binaries=0
for program in sluice sluicectl sluice-mock-provider; do [[ -x ${bin}/${program} ]] || missing_binaries=1; done
if [[ ${missing_binaries} == 1 ]]; then
  echo "docker_check: the binaries are not built in ${bin}: library checks skipped"
  [[ ${failures} == 0 ]] && exit 77
  exit 1
fi
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances ${runtime_packages} 2>/dev/null | grep -v '^ \|^<' | sed 's/:.*//' | sort -u)
declare -A owners=()
owner() {  # the package that installed library $1 (a path), without its architecture
  local path=$1 candidate found
  if [[ -n ${owners[${path}]:-} ]]; then echo "${owners[${path}]}"; return 0; fi
  for candidate in "${path}" "$(readlink -f "${path}")" "${path/#\/lib\//\/usr\/lib\/}" "${path/#\/usr\/lib\//\/lib\/}"; do
    if found=$(dpkg -S "${candidate}" 2>/dev/null | head -n 1); then
      owners[${path}]=${found%%:*}
      echo "${found%%:*}"
      return 0
    fi
  done
  return 1
}
declare -A needed_by=()
for program in sluice sluicectl sluice-mock-provider; do
  libraries=$(ldd "${bin}/${program}")
  if grep -q 'not found' <<<"${libraries}"; then
    fail "${program}: $(grep 'not found' <<<"${libraries}" | tr -s ' \t' ' ')"
  fi
  declare -A direct=()
  while read -r soname; do direct[${soname}]=1; done < <(readelf -d "${bin}/${program}" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
  while read -r soname path; do
    owner "${path}" >/dev/null  # fills the cache: $(owner) runs in a subshell
    package=${owners[${path}]:-} && [[ -n ${package} ]] || { fail "${program}: ${path} belongs to no Debian package"; continue; }
    if [[ -n ${direct[${soname}]:-} ]]; then
      [[ " ${needed_by[${package}]:-} " == *" ${soname} "* ]] || needed_by[${package}]+="${soname} "
      grep -qx "${package}" <<<"${runtime_packages}" ||
        fail "${program} needs ${soname} (package ${package}), which the runtime stage does not install"
    fi
    grep -qx "${package}" <<<"${closure}" ||
      fail "${program} loads ${path} (package ${package}), which no runtime package pulls in"
  done < <(awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' <<<"${libraries}")
  unset direct
done
for package in ${runtime_packages}; do
  [[ ${package} == ca-certificates || ${package} == tzdata ]] && continue
  if [[ -n ${needed_by[${package}]:-} ]]; then
    pass "${package} provides ${needed_by[${package}]}"
  else
    fail "runtime package ${package} ships no library the binaries need"
  fi
done

if [[ ${failures} -gt 0 ]]; then
  echo "docker_check: ${failures} failure(s)" >&2
  exit 1
fi
echo "docker_check: all checks passed"
