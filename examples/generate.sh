#!/bin/sh
# The plain pipeline: text in, a continuation out.
#   examples/generate.sh [MODEL] [PROMPT]
# MODEL is a model folder or HuggingFace repo id (default $PIPELM_MODEL).
set -eu
export PIPELM_MODEL="${1:-${PIPELM_MODEL:?give a model folder or set PIPELM_MODEL}}"
prompt=${2:-Once upon a time}
echo "$prompt" | tok-encode | llm-gen -n 64 --temp 0 | tok-decode
