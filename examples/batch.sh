#!/bin/sh
# Batch generation: one continuation per input line, two processes at a
# time (xargs -P 2) sharing the memory-mapped weights.  Each continuation
# is printed whole, as one line, in the order the prompts finish.
#   examples/batch.sh [MODEL] < prompts.txt
set -eu
export PIPELM_MODEL="${1:-${PIPELM_MODEL:?give a model folder or set PIPELM_MODEL}}"
tok-encode -l | xargs -d '\n' -P 2 -n 1 sh -c \
	'text=$(echo "$0" | llm-gen -t 1 -n 32 --temp 0 | tok-decode); echo "$text"'
