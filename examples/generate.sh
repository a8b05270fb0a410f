#!/bin/sh
# The plain pipeline: text in, a continuation out.
#   examples/generate.sh [MODEL] [PROMPT]
# MODEL is a model folder or HuggingFace repo id (default $PIPELM_MODEL,
# else the built-in model); the programs come from PATH, else from ../bin.
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
[ -z "${1:-}" ] || export PIPELM_MODEL="$1"
prompt=${2:-Once upon a time}
echo "$prompt" | tok-encode | llm-gen -n 64 --temp 0 | tok-decode
