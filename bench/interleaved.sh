#!/usr/bin/env bash
# Interleaved CPU per request: the bare node:http + undici proxy of ../shared/bench and one or more
# built gateway checkouts, side by side, all pinned to core 0, load from core 1 (autocannon) in
# bursts of B requests to each in turn for R rounds; each process's user+sys CPU from /proc is
# summed over its bursts. Drift of a shared machine (the bare proxy's own cost moved from 84 to
# 192 us per request between runs here) hits every process alike, so two builds can be told
# apart where consecutive runs of ../shared/bench/cpu-per-req.sh cannot. A checkout may carry
# node flags after '@' (e.g. /path@--max-semi-space-size=8).
#   bash bench/interleaved.sh <stream 0|1> <rounds> <checkout>[@flags] ...
# Env: B (2500 requests per burst), CONC (16), CHUNKS (20 SSE chunks), SHARED (../shared/bench).
# Tools (autocannon, undici) come from $BENCH_DEPS as cpu-per-req.sh installs them.
set -uo pipefail
S=$1; R=$2; shift 2
B=${B:-2500}; C=${CONC:-16}
SHARED=${SHARED:-$(cd "$(dirname "$0")/../../shared/bench" && pwd)}
DEPS=${BENCH_DEPS:-$HOME/.cache/gateway-bench}; AC=$DEPS/node_modules/.bin/autocannon
[ -x "$AC" ] || { echo "autocannon missing in $DEPS: run ../shared/bench/cpu-per-req.sh once" >&2; exit 1; }
MP=${MOCK_PORT:-18380}; base=${BASE_PORT:-18391}
pids=(); cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }; trap cleanup EXIT
MOCK_PORT=$MP STREAM_CHUNKS=${CHUNKS:-20} taskset -c 1 node "$SHARED/mock-upstream.cjs" >/dev/null 2>&1 & pids+=($!)
names=(bare); ports=($base)
PROXY_PORT=$base UPSTREAM=http://127.0.0.1:$MP NODE_PATH=$DEPS/node_modules taskset -c 0 node "$SHARED/baseline-proxy.cjs" >/dev/null 2>&1 & pids+=($!); procs=($!)
i=1
for spec in "$@"; do
  gw=${spec%%@*}; fl=""; [ "$spec" != "$gw" ] && fl=${spec#*@}
  p=$((base+i)); i=$((i+1))
  ( cd "$gw" && PORT=$p GATEWAY_API_KEYS=benchkey OPENAI_API_KEY=sk-bench OPENAI_BASE_URL=http://127.0.0.1:$MP/v1 NODE_ENV=production LOG_LEVEL=warn exec taskset -c 0 node $fl dist/src/cli/main.js serve ) >/dev/null 2>&1 & pids+=($!); procs+=($!)
  names+=("$(basename "$gw")$fl"); ports+=($p)
done
for p in "${ports[@]}"; do for _ in $(seq 1 80); do curl -s -o /dev/null "http://127.0.0.1:$p/v1/models" && break; curl -s -o /dev/null "http://127.0.0.1:$p/health" && break; sleep 0.25; done; done
b=$(node -e 'const s=process.argv[1]==="1";const b={model:"openai/gpt-4.1",messages:[{role:"system",content:"You are a concise assistant that answers in one sentence."},{role:"user",content:"Summarize the benefits of using an API gateway in front of several large language model providers, in one short sentence."}],temperature:0.7,max_tokens:128,user:"bench-user-0001"};if(s)b.stream=true;console.log(JSON.stringify(b))' "$S")
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
load() { taskset -c 1 "$AC" -c "$C" -a "$2" -m POST -H 'authorization=Bearer benchkey' -H 'content-type=application/json' -b "$b" "http://127.0.0.1:$1/v1/chat/completions" >/dev/null 2>&1; }
for k in "${!ports[@]}"; do load "${ports[$k]}" 3000; done
declare -a tot; for k in "${!ports[@]}"; do tot[$k]=0; done
for _ in $(seq 1 "$R"); do
  for k in "${!ports[@]}"; do c0=$(cpu "${procs[$k]}"); load "${ports[$k]}" "$B"; c1=$(cpu "${procs[$k]}"); tot[$k]=$((tot[$k] + c1 - c0)); done
done
n=$((R*B))
for k in "${!ports[@]}"; do
  hwm=$(awk '/VmHWM/{printf "%d", $2/1024}' "/proc/${procs[$k]}/status")
  echo "${names[$k]} stream=$S: $(( tot[$k]*10000/n )) us/req  ratio $(node -e "console.log((${tot[$k]}/${tot[0]}).toFixed(2))")  peak ${hwm} MB"
done
