#!/usr/bin/env bash
# Builds the image and tries compose.yaml the way the README says (issue 16, item 2): compose up
# (PostgreSQL, Redis, the migration job, two instances behind the proxy), the README walkthrough's
# first steps over HTTP through the proxy's one port, then compose down (volumes included).
#
#   bash scripts/container/smoke.sh               # official images from the registry
#   bash scripts/container/smoke.sh --local-base  # no registry: every image from Debian's packages
#
# Uses docker compose, or podman with podman-compose (CONTAINER=podman|docker to choose).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

local_base=false
[[ "${1:-}" == --local-base ]] && local_base=true
engine="${CONTAINER:-$(command -v podman >/dev/null && echo podman || echo docker)}"
project=scoreboard-smoke
if [[ "$engine" == podman ]]; then compose=(podman-compose -p "$project"); else compose=(docker compose -p "$project"); fi
# What it needs, said before anything runs instead of the engine's own first failure.
if ! command -v "$engine" >/dev/null; then
  echo "smoke: $engine is not installed (Docker Engine with the Compose v2 plugin and buildx, or podman with podman-compose)" >&2
  exit 1
fi
if ! "$engine" info >/dev/null 2>&1; then
  echo "smoke: no $engine daemon answers: start it (e.g. sudo systemctl start $engine), or check that this user may use it" >&2
  exit 1
fi
if ! "${compose[@]}" version >/dev/null 2>&1; then
  if [[ "$engine" == podman ]]; then echo "smoke: podman-compose is not installed" >&2
  else echo "smoke: 'docker compose' (the Compose v2 plugin) is not installed; the old docker-compose 1.x is not enough" >&2; fi
  exit 1
fi
port="${SMOKE_PORT:-3300}"
export PORT="$port" SCOREBOARD_IMAGE=localhost/scoreboard:smoke
url="http://127.0.0.1:$port"
step() { printf '\n== smoke: %s\n' "$*"; }

if $local_base; then
  step "local base images (Debian's packages, Node.js from the npm registry)"
  bash scripts/container/build-base.sh 22
fi

# Some sandboxes (this project's CI machine among them) let podman neither raise rlimits nor use
# crun's cgroup handling: there, run containers with runc and the machine's own limits.
probe="$($local_base && echo localhost/scoreboard-node:22 || echo docker.io/library/node:22-bookworm-slim)"
if [[ "$engine" == podman ]] && ! podman run --rm "$probe" true >/dev/null 2>&1; then
  conf="$(mktemp)"
  printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n' \
    "$(ulimit -Hn)" "$(ulimit -Hn)" >"$conf"
  export CONTAINERS_CONF="$conf"
  podman run --rm "$probe" true >/dev/null || { echo "smoke: podman cannot run containers on this machine" >&2; exit 1; }
  echo "smoke: podman runs with runc and this machine's limits ($conf)"
fi

build_args=()
if $local_base; then
  step "stand-ins for the postgres, redis and haproxy images"
  for name in postgres redis haproxy; do
    "$engine" build --quiet -t "localhost/scoreboard-$name:smoke" -f "scripts/container/$name.Dockerfile" scripts/container >/dev/null
  done
  export POSTGRES_IMAGE=localhost/scoreboard-postgres:smoke REDIS_IMAGE=localhost/scoreboard-redis:smoke \
    PROXY_IMAGE=localhost/scoreboard-haproxy:smoke
  build_args=(--build-arg NODE_IMAGE=localhost/scoreboard-node:22 --build-arg npm_config_build_from_source=better-sqlite3)
fi

step "build $SCOREBOARD_IMAGE"
format=()
[[ "$engine" == podman ]] && format=(--format docker) # keeps HEALTHCHECK (OCI images have none)
"$engine" build "${format[@]}" "${build_args[@]}" -t "$SCOREBOARD_IMAGE" .
"$engine" image inspect "$SCOREBOARD_IMAGE" --format 'user={{.Config.User}} healthcheck={{.Config.Healthcheck.Test}}'

down() { step "compose down"; "${compose[@]}" down -v >/dev/null 2>&1 || true; }
trap down EXIT

# The order compose.yaml's depends_on gives (podman-compose does not wait on conditions): the
# database and Redis, the migration job once they answer, then the instances and the proxy.
step "compose up"
"${compose[@]}" up -d postgres redis >/dev/null
for attempt in $(seq 1 30); do
  "${compose[@]}" run --rm migrate >"${TMPDIR:-/tmp}/smoke-migrate.log" 2>&1 && break
  [[ $attempt == 30 ]] && { cat "${TMPDIR:-/tmp}/smoke-migrate.log" >&2; exit 1; }
  sleep 2
done
grep -E 'Applied|Nothing to migrate' "${TMPDIR:-/tmp}/smoke-migrate.log"
"${compose[@]}" up -d scoreboard-1 scoreboard-2 proxy >/dev/null
for attempt in $(seq 1 60); do
  curl -fsS "$url/readyz" >/dev/null 2>&1 && break
  [[ $attempt == 60 ]] && { echo "smoke: $url/readyz never answered" >&2; exit 1; }
  sleep 1
done
curl -sS "$url/readyz"; echo

step "the walkthrough's first steps over HTTP, through the proxy"
json() { node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s.split("\n").filter((l)=>l.startsWith("{")).pop())'"$1"'))'; }
TOKEN="$("${compose[@]}" run --rm cli users:create --email you@example.com --name You --json 2>/dev/null | json .token)"
echo "1. users:create gave a token of ${#TOKEN} characters"
PROJECT="$(curl -sS -X POST "$url/api/v1/projects" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"name": "Shop", "framework_version": "11"}')"
API_TOKEN="$(echo "$PROJECT" | json .api_token)"
echo "2. project $(echo "$PROJECT" | json .project.id) created"
UPLOAD="$(curl -sS -w ' %{http_code}' -X POST "$url/api/reports" -H "Authorization: Bearer $API_TOKEN" -H 'Content-Type: application/json' \
  -d '{"project_id": "unknown", "analyzed_at": "2026-05-12T09:00:00+00:00", "results": [{"analyzer_id": "sql-injection", "status": "passed", "message": "ok", "issues": []}]}')"
echo "3. upload: $UPLOAD"
[[ "$UPLOAD" == *' 201' ]]
for i in 1 2 3 4; do
  LIST="$(curl -sS "$url/api/v1/projects" -H "Authorization: Bearer $TOKEN")"
done
echo "4. list: $(echo "$LIST" | json '.data.map((p) => p.name + " score " + p.latest_report.score).join(", ")')"
[[ "$(echo "$LIST" | json '.data[0].latest_report.score')" == 100 ]]

step "both instances answered"
for instance in scoreboard-1 scoreboard-2; do
  served="$("${compose[@]}" logs "$instance" 2>/dev/null | grep -c '"msg":"request completed"' || true)"
  echo "$instance: $served requests"
  [[ "$served" -gt 0 ]]
done
"$engine" ps --filter "name=$project" --format '{{.Names}} {{.Status}}'
echo
echo "smoke: passed"
