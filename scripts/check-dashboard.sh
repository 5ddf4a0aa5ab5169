#!/usr/bin/env bash
# check-dashboard.sh: Prometheus scrapes a daemon, then every expression of
# the Grafana dashboard (docs/grafana/cuzk.json) is queried through
# Prometheus' HTTP API; each must return a series (issue 32 item 4).
#
#   scripts/check-dashboard.sh                  # a daemon of its own, test circuits
#   scripts/check-dashboard.sh 127.0.0.1:9821   # your daemon's status_listen
#
# Without an address it builds cuzk, starts a daemon with
# --enable-test-circuits on loopback ports and drives a small load through
# it: proofs that complete, proofs that fail (a failing partition) and one
# that is cancelled, about 15 CPU-seconds in all. With an address it
# scrapes that daemon for CUZK_DASH_SECONDS (default 90) while you run
# your own load, then queries. Either way it first runs
# `promtool check metrics` on /metrics.
#
# Prometheus (Debian: apt-get install prometheus; the server binary only,
# not its service) runs on 127.0.0.1:${CUZK_PROM_PORT:-19090} with a 1 s
# scrape interval and a temporary storage directory, removed at exit.
# Dashboard variables become: $instance .*, $__rate_interval
# ${CUZK_DASH_RATE:-1m}, $__range 1h. A rate of something that did not happen is a series at 0, which
# counts as data; a quantile of no observations in the last minute is NaN
# and is reported as such (run the load closer to the end to see values).
#
# Prints one line per expression (data / NaN / NO DATA, the series count
# and the largest value); exits 1 if any expression has no series, 2 on set-up
# errors. Needs curl, jq, prometheus, promtool; Go for the built-in daemon.
set -euo pipefail

cd "$(dirname "$0")/.."
dashboard=docs/grafana/cuzk.json
prom_port=${CUZK_PROM_PORT:-19090}
grpc_port=${CUZK_DASH_GRPC_PORT:-19820}
status_port=${CUZK_DASH_STATUS_PORT:-19821}

for tool in curl jq prometheus promtool; do
	command -v "$tool" >/dev/null || { echo "check-dashboard: $tool not found" >&2; exit 2; }
done

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

wait_http() { # URL SECONDS
	for _ in $(seq "$2"); do
		curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
		sleep 1
	done
	echo "check-dashboard: nothing answers at $1" >&2
	exit 2
}

target=${1:-}
if [[ -z $target ]]; then
	echo "building cuzk, starting a daemon with test circuits on 127.0.0.1:$grpc_port (status $status_port)"
	go build -o "$tmp/cuzk" ./cmd/cuzk
	"$tmp/cuzk" params test-circuits --params "$tmp/params" --k 10 >/dev/null
	# orphan_grace 0: a job whose caller leaves is cancelled at once.
	printf '[engine]\norphan_grace = "0s"\n' >"$tmp/cuzk.toml"
	"$tmp/cuzk" daemon --config "$tmp/cuzk.toml" --listen "127.0.0.1:$grpc_port" --status-listen "127.0.0.1:$status_port" \
		--params "$tmp/params" --enable-test-circuits 2>"$tmp/daemon.log" &
	pids+=($!)
	target=127.0.0.1:$status_port
fi
wait_http "http://$target/metrics" 30

echo "promtool check metrics on http://$target/metrics"
curl -fsS "http://$target/metrics" | promtool check metrics
echo "  clean"

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: cuzk
    static_configs:
      - targets: ['$target']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
prom=http://127.0.0.1:$prom_port
wait_http "$prom/-/ready" 30
# Prometheus takes its targets up to 5 s after it is ready: wait for the
# first scrape, so the counters are seen at their values before the load.
for i in $(seq 30); do
	up=$(curl -fsS "$prom/api/v1/query" --data-urlencode 'query=up{job="cuzk"} == 1' | jq '.data.result | length')
	[[ $up -gt 0 ]] && break
	[[ $i -lt 30 ]] || { echo "check-dashboard: Prometheus has not scraped $target in 30 s (see $tmp/prometheus.log)" >&2; exit 2; }
	sleep 1
done

if [[ -n ${1:-} ]]; then
	secs=${CUZK_DASH_SECONDS:-90}
	echo "scraping $target for ${secs}s: run your load now"
	sleep "$secs"
else
	bench() { "$tmp/cuzk" bench "$@" --addr "127.0.0.1:$grpc_port" --status-addr "$target" --quiet >/dev/null 2>&1 || true; }
	echo "load: 20 proofs that complete, 4 that fail, 1 cancelled"
	bench batch -t test -n 20 -j 2
	bench batch -t test -n 4 -j 2 --test-options '{"fail_partition":0}'
	bench batch -t test -n 6 -j 3 --test-options '{"partitions":3,"synthesis_delay_ms":300}'
	# A job whose caller leaves: cancelled (orphan_grace 0).
	timeout 2 "$tmp/cuzk" bench single -t test --addr "127.0.0.1:$grpc_port" --quiet \
		--test-options '{"synthesis_delay_ms":10000}' >/dev/null 2>&1 || true
	sleep 5
fi
sleep 3 # the last scrapes

# Every target expression of every panel, rows' panels included.
mapfile -t exprs < <(jq -r '.. | objects | select(has("expr")) | .expr' "$dashboard")
[[ ${#exprs[@]} -gt 0 ]] || { echo "check-dashboard: no expressions in $dashboard" >&2; exit 2; }
missing=0
echo "${#exprs[@]} expressions of $dashboard, through Prometheus:"
for e in "${exprs[@]}"; do
	q=${e//\$__rate_interval/${CUZK_DASH_RATE:-1m}}
	q=${q//\$__range/1h}
	q=${q//\$instance/.*}
	res=$(curl -fsS "$prom/api/v1/query" --data-urlencode "query=$q")
	n=$(jq '.data.result | length' <<<"$res")
	nan=$(jq '[.data.result[] | select(.value[1] == "NaN")] | length' <<<"$res")
	v=$(jq -r '[.data.result[].value[1] | select(. != "NaN") | tonumber] | max // "-"' <<<"$res")
	if [[ $n -eq 0 ]]; then
		verdict="NO DATA"
		missing=$((missing + 1))
	elif [[ $nan -eq $n ]]; then
		verdict="NaN    "
	else
		verdict="data   "
	fi
	printf '%s %3d series  %-14s %s\n' "$verdict" "$n" "$v" "$e"
done
vars=$(curl -fsS "$prom/api/v1/series" --data-urlencode 'match[]=cuzk_uptime_seconds' | jq '.data | length')
echo "variable instance (label_values(cuzk_uptime_seconds, instance)): $vars instance(s)"
[[ $vars -gt 0 ]] || missing=$((missing + 1))
if [[ $missing -gt 0 ]]; then
	echo "check-dashboard: $missing without data" >&2
	exit 1
fi
echo "every expression has data"
