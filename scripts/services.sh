#!/usr/bin/env bash
# Local backing services for development and CI: Elasticsearch, Redis and PostgreSQL.
#
#   bash scripts/services.sh start [elasticsearch|redis|postgres]   start (all by default); idempotent
#   bash scripts/services.sh stop  [elasticsearch|redis|postgres]   stop what this checkout started
#   bash scripts/services.sh install elasticsearch   fetch, unpack and add the plugin without starting
#                                                      a node; prints ES_HOME and ES_JAVA_HOME lines
#   bash scripts/services.sh status
#
# `start` prints shell export lines on stdout (progress goes to stderr), so
#   eval "$(bash scripts/services.sh start)"
# sets ELASTICSEARCH_URL, REDIS_URL and TEST_POSTGRES_URL (the server on which the
# PostgreSQL suites create databases of their own). The same values, and DATABASE_URL of
# the test database for running the API by hand, are written, without `export`, to
# .cache/services.env. DATABASE_URL is not exported: it would switch every API and
# grants-admin run of the suites to PostgreSQL.
#
# PostgreSQL: a server already answering on 127.0.0.1:5432 is reused (e.g. the Debian
# cluster); otherwise the Debian cluster is started with pg_ctlcluster when there is one,
# else a cluster of this checkout is made with initdb under .cache/postgres (run as the
# `postgres` user, trust auth on loopback only). The server packages are installed with
# apt when missing. The test database PG_TEST_DB (default grants_test) is created when
# absent; DATABASE_URL points at it as user postgres. PG_PORT (default 5432) picks another port.
#
# Elasticsearch comes from the integ-test-zip distribution on Maven Central,
# fetched with mvn only, unpacked under .cache/elasticsearch/<version>/ and run
# as the unprivileged `elasticsearch` user (created when running as root).
# Environment:
#   ES_VERSION    exact version to use, or "latest" (the pinned version unless the
#                 repository metadata lists a newer 9.x). Default: the pinned version;
#                 if it cannot be fetched, the newest 9.x, 8.x, then 7.17.x that the
#                 metadata lists.
#   ES_JAVA_OPTS  JVM options (default "-Xms512m -Xmx512m").
#   ES_KEEP_DATA  1 keeps the data directory between starts (default: wiped, fresh cluster).
#   ES_START_TIMEOUT  seconds to wait for yellow health (default 180).
#
# Notes on the integ-test-zip (checked for 9.5.4, 9.2.0, 8.19.21, 7.17.29): its
# only modules are transport-netty4, apm (8+), x-pack-core and x-pack-security
# (security is switched off below: plain http, no auth). It has NO analysis-common:
# asciifolding, stemmer, the pattern/whitespace/keyword tokenizers and the language
# analyzers are missing; the standard tokenizer and analyzer and the lowercase,
# stop and shingle filters are built in. Without the rest-root module `GET /`
# answers 405, so this script identifies the node through /_cluster/health.

set -euo pipefail

# Newest 9.x integ-test-zip found on Maven Central when this was written. The
# repository's maven-metadata.xml does not list the 9.x releases (it stops at
# 8.19.x), so a version range cannot find them; hence the pin.
ES_PINNED_VERSION="9.5.4"

ES_GROUP="org.elasticsearch.distribution.integ-test-zip"
ES_ARTIFACT="elasticsearch"
ES_HOST="127.0.0.1"
ES_PORT="9200"
ES_TRANSPORT_PORT="9300"
ES_URL="http://${ES_HOST}:${ES_PORT}"
ES_RUN_USER="elasticsearch"

REDIS_HOST="127.0.0.1"
REDIS_PORT="6379"
REDIS_URL="redis://${REDIS_HOST}:${REDIS_PORT}"

PG_HOST="127.0.0.1"
PG_PORT="${PG_PORT:-5432}"
PG_USER="postgres"
PG_TEST_DB="${PG_TEST_DB:-grants_test}"
DATABASE_URL="postgres://${PG_USER}@${PG_HOST}:${PG_PORT}/${PG_TEST_DB}"
TEST_POSTGRES_URL="postgres://${PG_USER}@${PG_HOST}:${PG_PORT}/postgres"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${ROOT}/.cache"
ES_CACHE="${CACHE}/elasticsearch"
# Where the running node of this checkout is recorded (root-owned, always in the repo).
ES_STATE="${ES_CACHE}/running"
ENV_FILE="${CACHE}/services.env"

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- helpers

http_get() { # url -> body on stdout; non-zero if not reachable
  curl -fsS --max-time "${2:-5}" "$1" 2>/dev/null
}

# The 9.x integ-test-zip has no rest-root module, so `GET /` answers 405 there:
# identify the node by its cluster health and the X-elastic-product header.
es_answers() { # true when something on ES_URL answers like Elasticsearch
  local resp
  resp="$(curl -sS -i --max-time 3 "${ES_URL}/_cluster/health" 2>/dev/null)" || return 1
  grep -qi '^x-elastic-product: *Elasticsearch' <<<"$resp" ||
    [[ "$resp" == *'"cluster_name"'* && "$resp" == *'"number_of_nodes"'* ]]
}

es_version_running() {
  http_get "${ES_URL}/_nodes/_local?filter_path=nodes.*.version" 5 |
    sed -n 's/.*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' | head -n1
}

port_busy() { # host port
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

mvn_cmd() {
  command -v mvn >/dev/null 2>&1 || die "mvn not found (needed to fetch Elasticsearch from Maven Central)"
  mvn -B -q -c -Dstyle.color=never "$@"
}

major_of() { echo "${1%%.*}"; }

# --------------------------------------------------------- version choice

# Newest version inside a Maven range, read from the repository metadata by
# letting Maven resolve a throwaway POM. Prints the version or nothing.
newest_in_range() { # range
  local tmp out ver
  tmp="$(mktemp -d)"
  cat >"${tmp}/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.services</groupId>
  <artifactId>es-version-probe</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>${ES_GROUP}</groupId>
      <artifactId>${ES_ARTIFACT}</artifactId>
      <version>$1</version>
      <type>zip</type>
    </dependency>
  </dependencies>
</project>
EOF
  out="${tmp}/deps.txt"
  if (cd "$tmp" && mvn_cmd -U dependency:list -DexcludeTransitive=true -DoutputFile="$out" >/dev/null 2>&1); then
    ver="$(sed -n "s/.*${ES_GROUP}:${ES_ARTIFACT}:zip:\([^:]*\):.*/\1/p" "$out" | head -n1)"
  fi
  rm -rf "$tmp"
  [[ -n "${ver:-}" ]] && echo "$ver"
  return 0
}

# Versions to fall back on, newest first: what the metadata lists for 9.x, then
# 8.x, then 7.17.x. Upper bounds below the next major keep out 10.0.0-alpha1 and
# the like. Prints one version per line.
metadata_candidates() {
  local v range
  for range in "[9.0.0,9.9999]" "[8.0.0,8.9999]" "[7.17.0,7.17.9999]"; do
    v="$(newest_in_range "$range")"
    if [[ -n "$v" ]]; then echo "$v"; else log "the repository metadata lists no version in ${range}"; fi
  done
}

newer_of() { printf '%s\n' "$@" | sed '/^$/d' | sort -V | tail -n1; }

# Downloads the zip into the local Maven repository; prints its path.
fetch_zip() { # version
  local v="$1" repo zip
  local mlog="${ES_CACHE}/mvn-${v}.log"
  log "resolving ${ES_GROUP}:${ES_ARTIFACT}:${v}:zip with mvn"
  mkdir -p "$ES_CACHE"
  if ! mvn_cmd dependency:get -Dartifact="${ES_GROUP}:${ES_ARTIFACT}:${v}:zip" -Dtransitive=false >"$mlog" 2>&1; then
    log "mvn could not resolve ${v} (see ${mlog})"
    return 1
  fi
  local out="${ES_CACHE}/.localrepo"
  rm -f "$out"
  mvn_cmd help:evaluate -Dexpression=settings.localRepository -Doutput="$out" >>"$mlog" 2>&1 || true
  repo="$(sed 's/\x1b\[[0-9;]*m//g' "$out" 2>/dev/null | tr -d '\r\n')"
  rm -f "$out"
  [[ -n "$repo" ]] || repo="${HOME}/.m2/repository"
  zip="${repo}/${ES_GROUP//.//}/${ES_ARTIFACT}/${v}/${ES_ARTIFACT}-${v}.zip"
  [[ -f "$zip" ]] || return 1
  echo "$zip"
}

# ------------------------------------------------------------------ Java

jdk_feature() { # jdk dir -> feature version (21, 25, ...)
  local rel="$1/release" v
  [[ -f "$rel" && -x "$1/bin/java" ]] || return 1
  v="$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$rel")"
  v="${v#1.}"
  echo "${v%%[.+-]*}"
}

# Highest JDK with min <= feature <= max. Temurin builds first, then the rest.
find_jdk() { # min max
  local best="" best_f=0 d f
  for d in /usr/lib/jvm/temurin-* /usr/lib/jvm/*; do
    [[ -d "$d" ]] || continue
    f="$(jdk_feature "$d")" || continue
    [[ "$f" =~ ^[0-9]+$ ]] || continue
    if (( f >= $1 && f <= $2 && f > best_f )); then best="$d"; best_f="$f"; fi
  done
  [[ -n "$best" ]] && echo "$best"
}

jdk_for() { # es version
  case "$(major_of "$1")" in
    9|1[0-9]) find_jdk 21 99 || die "Elasticsearch $1 needs Java >= 21; none found under /usr/lib/jvm" ;;
    8)        find_jdk 17 21 || find_jdk 17 99 || die "Elasticsearch $1 needs Java 17+" ;;
    *)        find_jdk 11 17 || die "Elasticsearch $1 needs Java 11..17" ;;
  esac
}

# ---------------------------------------------------------- install/cache

es_user_ok() { # can the run user reach dir?
  [[ "$(id -u)" != "0" ]] && return 0
  runuser -u "$ES_RUN_USER" -- test -x "$1" 2>/dev/null
}

ensure_es_user() {
  [[ "$(id -u)" == "0" ]] || return 0
  if ! id -u "$ES_RUN_USER" >/dev/null 2>&1; then
    log "creating system user ${ES_RUN_USER}"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin "$ES_RUN_USER"
  fi
}

# Prints the ES_HOME of an unpacked, complete installation of version $1.
ensure_install() { # version base_dir
  local v="$1" base="$2" dir home zip tmp
  dir="${base}/${v}"
  home="${dir}/elasticsearch-${v}"
  if [[ -f "${dir}/.complete" && -x "${home}/bin/elasticsearch" ]]; then
    echo "$home"; return 0
  fi
  zip="$(fetch_zip "$v")" || return 1
  command -v unzip >/dev/null 2>&1 || {
    log "installing unzip"; apt-get update -qq >&2 && apt-get install -y -qq unzip >&2
  }
  log "unpacking $(basename "$zip") into ${dir}"
  mkdir -p "$dir" || return 1
  tmp="$(mktemp -d "${dir}/.unpack.XXXXXX")" || return 1
  if ! unzip -q "$zip" -d "$tmp" || [[ ! -x "${tmp}/elasticsearch-${v}/bin/elasticsearch" ]]; then
    rm -rf "$tmp"; log "could not unpack $zip"; return 1
  fi
  rm -rf "$home"
  mv "${tmp}/elasticsearch-${v}" "$home" || return 1
  rm -rf "$tmp"
  touch "${dir}/.complete" || return 1
  echo "$home"
}

# ------------------------------------------------------------ Elasticsearch

# Fetches, unpacks and completes (plugin) the pinned version without starting anything: for the
# suites that run private nodes of their own (test/support/elasticsearch.ts). Prints ES_HOME=
# and ES_JAVA_HOME= lines. ES_INSTALL_OFFLINE=1: fail rather than fetch when it is not installed.
install_elasticsearch() {
  local v="${ES_VERSION:-$ES_PINNED_VERSION}" base home jdk
  ensure_es_user
  base="$ES_CACHE"
  mkdir -p "$base"
  if ! es_user_ok "$base"; then
    base="${ES_FALLBACK_CACHE:-/var/cache/grants-api-elasticsearch}"
    mkdir -p "$base"; chmod 755 "$base"
  fi
  if [[ "${ES_INSTALL_OFFLINE:-0}" == "1" && ! -f "${base}/${v}/.complete" ]]; then
    die "Elasticsearch ${v} is not installed under ${base} (ES_INSTALL_OFFLINE=1: not fetching it)"
  fi
  home="$(ensure_install "$v" "$base")" || die "could not fetch Elasticsearch ${v}"
  jdk="$(jdk_for "$v")"
  ensure_analysis_plugin "$home" "$jdk" "$v" || die "could not install the grants-analysis plugin"
  echo "ES_HOME=${home}"
  echo "ES_JAVA_HOME=${jdk}"
}

# The checksum of the plugin's sources, kept beside an install to tell when to rebuild it.
analysis_plugin_sum() { # src
  (cd "$1" && cat named_components.json src/grants/analysis/*.java | sha256sum | cut -d' ' -f1)
}

# The integ-test-zip lacks analysis-common: build and install our small stable plugin that
# provides asciifolding, stemmer, the pattern tokenizer and the pattern_replace char filter
# (scripts/es-analysis-plugin). An install from other sources is replaced.
ensure_analysis_plugin() { # home jdk version
  local home="$1" jdk="$2" v="$3" src="${ROOT}/scripts/es-analysis-plugin" tmp sum stamp
  [[ -d "${home}/modules/analysis-common" ]] && return 0
  sum="$(analysis_plugin_sum "$src")"; stamp="${home}/grants-analysis.sha256"
  if [[ -d "${home}/plugins/grants-analysis" ]]; then
    [[ "$(cat "$stamp" 2>/dev/null)" == "$sum" ]] && return 0
    log "the grants-analysis plugin's sources changed: removing the installed one"
    env -u JAVA_HOME "ES_JAVA_HOME=${jdk}" "ES_PATH_CONF=${home}/config" \
      "${home}/bin/elasticsearch-plugin" remove grants-analysis >&2 || return 1
  fi
  log "building the grants-analysis plugin for Elasticsearch ${v}"
  tmp="$(mktemp -d)" || return 1
  mkdir -p "${tmp}/classes" "${tmp}/pkg"
  "${jdk}/bin/javac" --release 21 -nowarn -cp "${home}/lib/*" -d "${tmp}/classes" "${src}"/src/grants/analysis/*.java >&2 || { rm -rf "$tmp"; return 1; }
  "${jdk}/bin/jar" cf "${tmp}/pkg/grants-analysis.jar" -C "${tmp}/classes" . || { rm -rf "$tmp"; return 1; }
  cp "${src}/named_components.json" "${tmp}/pkg/"
  {
    echo "description=asciifolding, stemmer (english, light_french), the pattern tokenizer and the pattern_replace char filter for the integ-test-zip"
    echo "version=1.0.0"
    echo "name=grants-analysis"
    echo "java.version=21"
    echo "elasticsearch.version=${v}"
  } >"${tmp}/pkg/stable-plugin-descriptor.properties"
  (cd "${tmp}/pkg" && "${jdk}/bin/jar" cfM "${tmp}/grants-analysis.zip" .) || { rm -rf "$tmp"; return 1; }
  env -u JAVA_HOME "ES_JAVA_HOME=${jdk}" "ES_PATH_CONF=${home}/config" \
    "${home}/bin/elasticsearch-plugin" install --batch "file://${tmp}/grants-analysis.zip" >&2 || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
  echo "$sum" >"$stamp"
}

write_es_config() { # home data logs
  local home="$1" data="$2" logs="$3" yml="$1/config/elasticsearch.yml"
  {
    echo "# written by scripts/services.sh on every start"
    echo "cluster.name: grants-api-dev"
    echo "node.name: grants-api-dev-1"
    echo "path.data: ${data}"
    echo "path.logs: ${logs}"
    echo "network.host: ${ES_HOST}"
    echo "http.port: ${ES_PORT}"
    echo "transport.port: ${ES_TRANSPORT_PORT}"
    echo "discovery.type: single-node"
    echo "cluster.routing.allocation.disk.threshold_enabled: false"
    echo "action.destructive_requires_name: false"
    # Only settings of modules that are present: anything else is rejected.
    if [[ -d "${home}/modules/x-pack-security" ]]; then
      echo "xpack.security.enabled: false"
    fi
  } >"$yml"
}

es_pid_alive() { # pid
  [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q 'org.elasticsearch'
}

start_elasticsearch() {
  if es_answers; then
    log "Elasticsearch $(es_version_running) already answers on ${ES_URL}; reusing it"
    wait_es_health "" || die "Elasticsearch on ${ES_URL} is not healthy"
    return 0
  fi
  if port_busy "$ES_HOST" "$ES_PORT"; then
    die "port ${ES_PORT} is in use by something that is not Elasticsearch"
  fi

  local t0=$SECONDS explicit="${ES_VERSION:-}" v base home jdk run data logs pidfile startlog
  v="${explicit:-$ES_PINNED_VERSION}"
  if [[ "$v" == "latest" ]]; then
    # The metadata does not list 9.x today; take it only if it knows a newer one.
    v="$(newer_of "$ES_PINNED_VERSION" "$(newest_in_range "[9.0.0,9.9999]")")"
    log "latest known 9.x version: ${v}"
  fi

  ensure_es_user
  base="$ES_CACHE"
  mkdir -p "$base"
  if ! es_user_ok "$base"; then
    # e.g. a clone under /root (mode 700): the unprivileged user cannot reach it.
    base="${ES_FALLBACK_CACHE:-/var/cache/grants-api-elasticsearch}"
    log "user ${ES_RUN_USER} cannot reach ${ES_CACHE}; using ${base} instead"
    mkdir -p "$base"; chmod 755 "$base"
  fi

  if ! home="$(ensure_install "$v" "$base")"; then
    [[ -z "$explicit" || "$explicit" == "latest" ]] || die "could not fetch Elasticsearch ${v} (ES_VERSION)"
    log "could not fetch ${v}; falling back to what the repository metadata lists"
    local failed="$v" cand
    home=""
    for cand in $(metadata_candidates); do
      [[ "$cand" != "$failed" ]] || continue
      if home="$(ensure_install "$cand" "$base")"; then v="$cand"; break; fi
      home=""
    done
    [[ -n "$home" ]] || die "no Elasticsearch integ-test-zip could be fetched with mvn"
  fi
  jdk="$(jdk_for "$v")"
  ensure_analysis_plugin "$home" "$jdk" "$v" || die "could not install the grants-analysis plugin"

  run="${base}/${v}/run"; data="${base}/${v}/data"; logs="${base}/${v}/logs"
  pidfile="${run}/elasticsearch.pid"; startlog="${logs}/startup.log"
  if [[ "${ES_KEEP_DATA:-0}" != "1" ]]; then rm -rf "$data"; fi
  mkdir -p "$run" "$data" "$logs"
  rm -f "$pidfile"
  write_es_config "$home" "$data" "$logs"
  if [[ "$(id -u)" == "0" ]]; then
    chown -R "${ES_RUN_USER}:${ES_RUN_USER}" "${base}/${v}"
  fi

  log "starting Elasticsearch ${v} (Java $(jdk_feature "$jdk") from ${jdk}) on ${ES_URL}"
  local -a launch=(env -u JAVA_HOME
    "ES_JAVA_HOME=${jdk}"
    "ES_JAVA_OPTS=${ES_JAVA_OPTS:--Xms512m -Xmx512m}"
    "ES_PATH_CONF=${home}/config"
    "${home}/bin/elasticsearch" -d -p "$pidfile")
  if [[ "$(id -u)" == "0" ]]; then launch=(runuser -u "$ES_RUN_USER" -- "${launch[@]}"); fi
  # The launcher returns once the node is up (or has failed); run it in the
  # background so progress can be shown meanwhile.
  (cd "$home" && exec "${launch[@]}" </dev/null >"$startlog" 2>&1) &
  local launcher=$!
  {
    echo "version=${v}"
    echo "home=${home}"
    echo "pidfile=${pidfile}"
  } >"$ES_STATE"

  if ! wait_es_health "$launcher"; then
    log "last lines of ${startlog}:"; tail -n 30 "$startlog" >&2 || true
    [[ -f "${logs}/grants-api-dev.log" ]] && { log "last lines of the node log:"; tail -n 30 "${logs}/grants-api-dev.log" >&2; }
    stop_elasticsearch || true
    die "Elasticsearch did not become healthy"
  fi
  wait "$launcher" 2>/dev/null || true
  log "Elasticsearch $(es_version_running) is up on ${ES_URL} (pid $(cat "$pidfile" 2>/dev/null || echo '?'), $((SECONDS - t0)) s)"
}

wait_es_health() { # launcher pid ("" when reusing)
  local timeout="${ES_START_TIMEOUT:-180}" start=$SECONDS next=0 body status
  while :; do
    body="$(http_get "${ES_URL}/_cluster/health?wait_for_status=yellow&timeout=5s" 10)" || body=""
    status="$(sed -n 's/.*"status"[[:space:]]*:[[:space:]]*"\([a-z]*\)".*/\1/p' <<<"$body")"
    if [[ "$status" == "yellow" || "$status" == "green" ]]; then
      log "cluster health: ${status}"
      return 0
    fi
    if [[ -n "$1" ]] && ! kill -0 "$1" 2>/dev/null; then
      # launcher finished: fine if it succeeded and the node is still coming up
      if ! wait "$1"; then log "the Elasticsearch launcher failed"; return 1; fi
      set -- ""
    fi
    if (( SECONDS - start >= timeout )); then
      log "timed out after ${timeout} s waiting for yellow health"; return 1
    fi
    if (( SECONDS >= next )); then
      log "waiting for Elasticsearch... $((SECONDS - start)) s${status:+ (status ${status})}"
      next=$((SECONDS + 10))
    fi
    sleep 2
  done
}

stop_elasticsearch() {
  if [[ ! -f "$ES_STATE" ]]; then
    if es_answers; then
      log "Elasticsearch on ${ES_URL} was not started by this checkout; leaving it alone"
    else
      log "Elasticsearch is not running"
    fi
    return 0
  fi
  local pidfile pid i
  pidfile="$(sed -n 's/^pidfile=//p' "$ES_STATE")"
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if es_pid_alive "$pid"; then
    log "stopping Elasticsearch (pid ${pid})"
    kill -TERM "$pid" 2>/dev/null || true
    # Identity was checked above; from here on wait for the process to be gone.
    for ((i = 0; i < 60; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then
      log "still running after 30 s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
    fi
    log "Elasticsearch stopped"
  else
    log "Elasticsearch is not running (stale pid file)"
  fi
  rm -f "$pidfile" "$ES_STATE"
}

status_elasticsearch() {
  local health
  if es_answers; then
    health="$(http_get "${ES_URL}/_cluster/health" 5 | sed -n 's/.*"status"[[:space:]]*:[[:space:]]*"\([a-z]*\)".*/\1/p')"
    local owner="not started by this checkout"
    if [[ -f "$ES_STATE" ]]; then owner="pid $(cat "$(sed -n 's/^pidfile=//p' "$ES_STATE")" 2>/dev/null || echo '?')"; fi
    echo "elasticsearch: up ${ES_URL} version $(es_version_running) health ${health:-unknown} (${owner})"
    return 0
  fi
  echo "elasticsearch: down"
  return 1
}

# ------------------------------------------------------------------- Redis

redis_ping() {
  if command -v redis-cli >/dev/null 2>&1; then
    [[ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" == "PONG" ]]
  else
    local reply
    reply="$( (exec 3<>"/dev/tcp/${REDIS_HOST}/${REDIS_PORT}" && printf 'PING\r\n' >&3 && timeout 2 head -c 7 <&3) 2>/dev/null)" || return 1
    [[ "$reply" == "+PONG"* ]]
  fi
}

start_redis() {
  if redis_ping; then
    log "Redis answers on ${REDIS_URL}"
    return 0
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    log "installing redis-server"
    apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server >&2
  fi
  mkdir -p "${CACHE}/redis"
  log "starting redis-server on ${REDIS_HOST}:${REDIS_PORT}"
  redis-server --daemonize yes --bind "$REDIS_HOST" --port "$REDIS_PORT" --save "" --appendonly no \
    --pidfile "${CACHE}/redis/redis.pid" --dir "${CACHE}/redis" --logfile "${CACHE}/redis/redis.log" >&2
  local i
  for ((i = 0; i < 50; i++)); do
    if redis_ping; then log "Redis is up on ${REDIS_URL}"; return 0; fi
    sleep 0.2
  done
  die "Redis did not answer PING (see ${CACHE}/redis/redis.log)"
}

stop_redis() {
  local pidfile="${CACHE}/redis/redis.pid" pid
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && grep -q redis-server "/proc/${pid}/cmdline" 2>/dev/null; then
    log "stopping Redis (pid ${pid})"
    kill -TERM "$pid"
    rm -f "$pidfile"
  else
    log "Redis was not started by this checkout; leaving it alone"
  fi
}

status_redis() {
  if redis_ping; then echo "redis: up ${REDIS_URL}"; return 0; fi
  echo "redis: down"
  return 1
}

# -------------------------------------------------------------- PostgreSQL

# Newest server binaries installed (Debian keeps them under /usr/lib/postgresql/<major>/bin).
pg_bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
  if [[ -n "$d" && -x "${d}/postgres" ]]; then echo "$d"; return 0; fi
  d="$(dirname "$(command -v postgres 2>/dev/null || echo /nonexistent/x)")"
  [[ -x "${d}/postgres" ]] && echo "$d"
}

pg_ready() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2
  else
    port_busy "$PG_HOST" "$PG_PORT"
  fi
}

pg_psql() { # sql -> output (database postgres)
  psql -X -q -At -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -v ON_ERROR_STOP=1 -c "$1"
}

ensure_pg_installed() {
  if [[ -n "$(pg_bindir)" ]] && command -v psql >/dev/null 2>&1; then return 0; fi
  log "installing postgresql"
  apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql postgresql-client >&2
  [[ -n "$(pg_bindir)" ]] || die "PostgreSQL server binaries not found after installing postgresql"
}

wait_pg_ready() {
  local i
  for ((i = 0; i < 150; i++)); do
    if pg_ready; then return 0; fi
    sleep 0.2
  done
  return 1
}

# A cluster of this checkout under .cache/postgres (when there is no Debian cluster to start).
start_own_pg_cluster() {
  local bindir data base="${CACHE}/postgres"
  bindir="$(pg_bindir)"
  if [[ "$(id -u)" == "0" ]] && ! runuser -u postgres -- test -x "$CACHE" 2>/dev/null; then
    base="${PG_FALLBACK_DIR:-/var/cache/grants-api-postgres}"
    log "user postgres cannot reach ${CACHE}; using ${base} instead"
  fi
  data="${base}/data"
  mkdir -p "$base"
  if [[ "$(id -u)" == "0" ]]; then chown postgres:postgres "$base"; fi
  local -a as_pg=()
  if [[ "$(id -u)" == "0" ]]; then as_pg=(runuser -u postgres --); fi
  if [[ ! -f "${data}/PG_VERSION" ]]; then
    log "initdb ${data}"
    "${as_pg[@]}" "${bindir}/initdb" -D "$data" -U "$PG_USER" --auth=trust -E UTF8 --locale=C >&2
  fi
  log "starting PostgreSQL ($(basename "$(dirname "$bindir")")) from ${data} on ${PG_HOST}:${PG_PORT}"
  "${as_pg[@]}" "${bindir}/pg_ctl" -D "$data" -l "${base}/postgres.log" -w -t 60 \
    -o "-c listen_addresses=${PG_HOST} -p ${PG_PORT} -c unix_socket_directories=${base}" start >&2 ||
    die "PostgreSQL did not start (see ${base}/postgres.log)"
  echo "data=${data}" >"${CACHE}/postgres.running"
  echo "bindir=${bindir}" >>"${CACHE}/postgres.running"
}

start_postgres() {
  if pg_ready; then
    log "PostgreSQL answers on ${PG_HOST}:${PG_PORT}"
  else
    ensure_pg_installed
    if port_busy "$PG_HOST" "$PG_PORT"; then die "port ${PG_PORT} is in use by something that is not PostgreSQL"; fi
    mkdir -p "$CACHE"
    local cluster=""
    if command -v pg_lsclusters >/dev/null 2>&1; then
      cluster="$(pg_lsclusters -h 2>/dev/null | awk -v p="$PG_PORT" '$3 == p { print $1 " " $2; exit }')"
    fi
    if [[ -n "$cluster" ]]; then
      log "starting the PostgreSQL cluster ${cluster} with pg_ctlcluster"
      # shellcheck disable=SC2086
      pg_ctlcluster $cluster start >&2 || die "pg_ctlcluster ${cluster} start failed"
    else
      start_own_pg_cluster
    fi
    wait_pg_ready || die "PostgreSQL did not answer on ${PG_HOST}:${PG_PORT}"
    log "PostgreSQL is up on ${PG_HOST}:${PG_PORT}"
  fi
  command -v psql >/dev/null 2>&1 || ensure_pg_installed
  pg_psql 'select 1' >/dev/null ||
    die "cannot connect to PostgreSQL as ${PG_USER} on ${PG_HOST}:${PG_PORT} (trust authentication on loopback is expected)"
  if [[ "$(pg_psql "select 1 from pg_database where datname = '${PG_TEST_DB}'")" != "1" ]]; then
    log "creating database ${PG_TEST_DB}"
    pg_psql "create database \"${PG_TEST_DB}\"" >/dev/null || die "could not create database ${PG_TEST_DB}"
  fi
}

stop_postgres() {
  local state="${CACHE}/postgres.running" data bindir
  if [[ ! -f "$state" ]]; then
    log "PostgreSQL was not started by this checkout; leaving it alone"
    return 0
  fi
  data="$(sed -n 's/^data=//p' "$state")"; bindir="$(sed -n 's/^bindir=//p' "$state")"
  log "stopping PostgreSQL (${data})"
  local -a as_pg=()
  if [[ "$(id -u)" == "0" ]]; then as_pg=(runuser -u postgres --); fi
  "${as_pg[@]}" "${bindir}/pg_ctl" -D "$data" -m fast -w stop >&2 || true
  rm -f "$state"
}

status_postgres() {
  if pg_ready; then echo "postgres: up postgres://${PG_USER}@${PG_HOST}:${PG_PORT} (test database ${PG_TEST_DB})"; return 0; fi
  echo "postgres: down"
  return 1
}

# -------------------------------------------------------------------- main

write_env() {
  mkdir -p "$CACHE"
  {
    echo "ELASTICSEARCH_URL=${ES_URL}"
    echo "REDIS_URL=${REDIS_URL}"
    echo "TEST_POSTGRES_URL=${TEST_POSTGRES_URL}"
    echo "DATABASE_URL=${DATABASE_URL}"
  } >"$ENV_FILE"
}

usage() {
  echo "usage: $0 start|stop|status [elasticsearch|redis|postgres] | install elasticsearch" >&2
  exit 2
}

main() {
  local cmd="${1:-}" what="${2:-all}" rc=0
  case "$what" in all|elasticsearch|es|redis|postgres|postgresql|pg) ;; *) usage ;; esac
  [[ "$what" == "es" ]] && what=elasticsearch
  [[ "$what" == "postgresql" || "$what" == "pg" ]] && what=postgres
  case "$cmd" in
    start)
      if [[ "$what" == all || "$what" == redis ]]; then start_redis; fi
      if [[ "$what" == all || "$what" == postgres ]]; then start_postgres; fi
      if [[ "$what" == all || "$what" == elasticsearch ]]; then start_elasticsearch; fi
      write_env
      if [[ "$what" == all || "$what" == elasticsearch ]]; then echo "export ELASTICSEARCH_URL=${ES_URL}"; fi
      if [[ "$what" == all || "$what" == redis ]]; then echo "export REDIS_URL=${REDIS_URL}"; fi
      if [[ "$what" == all || "$what" == postgres ]]; then echo "export TEST_POSTGRES_URL=${TEST_POSTGRES_URL}"; fi
      ;;
    stop)
      if [[ "$what" == all || "$what" == elasticsearch ]]; then stop_elasticsearch; fi
      if [[ "$what" == all || "$what" == redis ]]; then stop_redis; fi
      if [[ "$what" == all || "$what" == postgres ]]; then stop_postgres; fi
      ;;
    install)
      [[ "$what" == elasticsearch ]] || usage
      install_elasticsearch
      ;;
    status)
      if [[ "$what" == all || "$what" == elasticsearch ]]; then status_elasticsearch || rc=1; fi
      if [[ "$what" == all || "$what" == redis ]]; then status_redis || rc=1; fi
      if [[ "$what" == all || "$what" == postgres ]]; then status_postgres || rc=1; fi
      return "$rc"
      ;;
    *) usage ;;
  esac
}

main "$@"
