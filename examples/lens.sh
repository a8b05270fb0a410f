#!/bin/sh
# The layer where the answer appears: the logit lens of each layer at the
# prompt's last position (llm-trace's table), and the first layer whose
# top token is already the model's own next token.
#   examples/lens.sh [MODEL] [PROMPT]
# MODEL is a model folder or HuggingFace repo id (default $PIPELM_MODEL,
# else the built-in model); the programs come from PATH, else from ../bin.
set -eu
command -v llm-trace >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
[ -z "${1:-}" ] || export PIPELM_MODEL="$1"
prompt=${2:-Once upon a time, there was a little girl named}
echo "$prompt" | tok-encode | llm-trace |
awk -F '\t' '
NR > 1 { id[$3] = $10; p[$3] = $11; last = $3 }	# the last position wins
END {
	for (l = 0; l <= last; l++)
		if (id[l] == id[last]) {
			printf "%d\t%d\t%s\n", l, id[l], p[l]
			exit
		}
}' | {
	IFS='	' read -r layer tok p
	printf '%s' "$tok" | tok-decode | tr -d '\n'
	echo " from layer $layer of the lens (p $p there)"
}
