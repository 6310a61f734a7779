#!/usr/bin/env bash
# The production install the README documents, tried (issue 16, item 1): on a checkout built with
# every dependency (`npm ci`, which builds), drop the dev dependencies, then serve from what is
# left: migrate, create a user, start `scoreboard serve`, create a project over HTTP, stop it with
# SIGTERM. Then the same after `npm ci --omit=dev`, whose `prepare` must not fail without TypeScript.
#
# Usage (from a built checkout; it removes the dev dependencies): bash scripts/production-smoke.sh
# `npm ci` gives them back.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -f dist/cli/main.js ]] || { echo "production-smoke: no build in dist/: run npm ci && npm run build first" >&2; exit 1; }

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)'"$1"'))'; }

smoke() {
  local label="$1" db="$work/$1.db" log="$work/$1.log" port url token status
  export DATABASE_URL="sqlite:$db" LOG_FORMAT=json HOST=127.0.0.1 PORT=0
  node bin/scoreboard.js migrate >/dev/null
  token="$(node bin/scoreboard.js users:create --email "ops-$label@example.com" --json | json_field .token)"

  node bin/scoreboard.js serve >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    port="$(grep -o 'Scoreboard listening on http://127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$' || true)"
    [[ -n "$port" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$log" >&2; echo "production-smoke ($label): serve exited" >&2; return 1; }
    sleep 0.1
  done
  [[ -n "$port" ]] || { cat "$log" >&2; echo "production-smoke ($label): serve did not start" >&2; return 1; }
  url="http://127.0.0.1:$port"

  curl -fsS "$url/healthz" >/dev/null
  # The dashboard (E7) was built into dist/web/ before the dev dependencies went: still served.
  curl -fsS "$url/" | grep -q '<div id="app"></div>' || { echo "production-smoke ($label): / does not serve the dashboard" >&2; return 1; }
  status="$(curl -sS -o "$work/project.json" -w '%{http_code}' -X POST "$url/api/v1/projects" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d '{"name": "Shop", "framework_version": "11"}')"
  [[ "$status" == 201 ]] || { cat "$work/project.json" >&2; echo "production-smoke ($label): POST /api/v1/projects gave $status" >&2; return 1; }

  kill -TERM "$server_pid"
  wait "$server_pid" || { cat "$log" >&2; echo "production-smoke ($label): serve did not exit 0 on SIGTERM" >&2; return 1; }
  server_pid=""
  grep -q '"route":"/api/v1/projects","url":"/api/v1/projects","status":201' "$log" \
    || { cat "$log" >&2; echo "production-smoke ($label): no request log line" >&2; return 1; }
  echo "production-smoke ($label): served $url, created a project, stopped cleanly"
}

no_dev_dependencies() {
  for dev in typescript vitest fast-check; do
    [[ ! -e "node_modules/$dev" ]] || { echo "production-smoke: node_modules/$dev is still installed" >&2; return 1; }
  done
}

echo "production-smoke: npm prune --omit=dev"
npm prune --omit=dev --no-audit --no-fund >/dev/null
no_dev_dependencies
smoke pruned

echo "production-smoke: npm ci --omit=dev"
npm ci --omit=dev --no-audit --no-fund
no_dev_dependencies
smoke reinstalled
