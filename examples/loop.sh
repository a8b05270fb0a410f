#!/bin/sh
# The autoregressive loop as a plain pipeline: llm-logits in session mode
# feeds llm-sample, whose ids go back to llm-logits through a FIFO.  Gives
# the same ids as `llm-gen --seed 7 --temp 0.8 -n 32`.
#   examples/loop.sh [MODEL] [PROMPT]
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
[ -z "${1:-}" ] || export PIPELM_MODEL="$1"
prompt=${2:-Once upon a time}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/loop"
printf '%s\n' "$prompt" | tok-encode | cat - "$dir/loop" | llm-logits -s |
	llm-sample -n 32 --seed 7 --temp 0.8 | tee "$dir/loop" | tok-decode -n
echo
