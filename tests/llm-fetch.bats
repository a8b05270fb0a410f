#!/usr/bin/env bats
# llm-fetch: a repository from a stand-in Hub (tests/hubstub.py, on
# 127.0.0.1 only) into the HuggingFace cache, laid out as huggingface_hub
# lays it out (file_download.py: blobs/<etag>, snapshots/<commit>/<path> ->
# ../../blobs/<etag>, refs/<rev> holding the commit without a newline).
load helpers

C1=$(printf 'commit one' | sha1sum | cut -c1-40)
C2=$(printf 'commit two' | sha1sum | cut -c1-40)
C3=$(printf 'commit three' | sha1sum | cut -c1-40)

# The stand-in Hub's repository org/tiny: main (C1) a random model of
# mkmodel's with files pipelm does not read beside it; tag v1 (C2) another;
# tag bare (C3) a README alone.
setup_file() {
	need_cmd python3
	need_cmd curl
	need_cmd git	# git hash-object: the reference for a regular file's blob name
	local r=$BATS_FILE_TMPDIR/root/org/tiny
	mkdir -p "$r"
	mkmodel -s 3 --hidden 32 --layers 1 --heads 2 --kv-heads 1 --inter 48 \
	    --vocab 260 --ctx 64 "$r/$C1"
	printf '{"eos_token_id": 2}\n' >"$r/$C1/generation_config.json"
	printf '{"bos_token": "<s>"}\n' >"$r/$C1/special_tokens_map.json"
	printf '# tiny\n' >"$r/$C1/README.md"
	printf 'notes\n' >"$r/$C1/données.txt"
	mkdir -p "$r/$C1/onnx" "$r/$C1/extra/deep"
	printf 'not a model\n' >"$r/$C1/onnx/model.safetensors"
	printf 'deep\n' >"$r/$C1/extra/deep/file.txt"
	: >"$r/$C1/empty.txt"
	mkmodel -s 4 --hidden 32 --layers 1 --heads 2 --kv-heads 1 --inter 48 \
	    --vocab 260 --ctx 64 "$r/$C2"
	mkdir -p "$r/$C3" "$r/refs"
	printf '# bare\n' >"$r/$C3/README.md"
	printf '%s' "$C3" >"$r/refs/bare"
	printf '%s' "$C1" >"$r/refs/main"
	printf '%s' "$C2" >"$r/refs/v1"
	export ROOT=$BATS_FILE_TMPDIR/root REPO=$r
}

# A server per test, on ports the kernel picks; stopped by teardown even
# when the test fails, and by itself after 300 s whatever happens.
setup() {
	CTL=$BATS_TEST_TMPDIR/ctl LOG=$BATS_TEST_TMPDIR/log
	mkdir -p "$CTL"
	: >"$LOG"
	python3 "$BATS_TEST_DIRNAME/hubstub.py" "$ROOT" "$CTL" "$LOG" \
	    "$BATS_TEST_TMPDIR/port" >"$BATS_TEST_TMPDIR/server.err" 2>&1 3>&- &
	SRV=$!
	local i
	for i in $(seq 300); do
		[ -s "$BATS_TEST_TMPDIR/port" ] && break
		sleep 0.1
	done
	read -r HUBPORT CDNPORT <"$BATS_TEST_TMPDIR/port"
	export HF_ENDPOINT=http://127.0.0.1:$HUBPORT
	export HF_HUB_CACHE=$BATS_TEST_TMPDIR/hub HF_HOME=$BATS_TEST_TMPDIR/hfhome
	unset HF_TOKEN HF_TOKEN_PATH HF_HUB_OFFLINE TRANSFORMERS_OFFLINE
	M=$HF_HUB_CACHE/models--org--tiny
}

teardown() {
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null || true
}

# blobname FILE: what huggingface_hub names its blob: the sha256 for an LFS
# file (the stand-in's LFS files are *.safetensors), else the git blob id.
blobname() {
	case $1 in
	*.safetensors) sha256sum <"$1" | cut -c1-64 ;;
	*) git hash-object --no-filters -- "$1" ;;
	esac
}

# layout COMMIT FILE...: the listing huggingface_hub leaves for these files
# of COMMIT, "type path [link target]" sorted, computed from the files.
layout() {
	local c=$1 f b up
	shift
	{
		printf 'd blobs\nd snapshots\nd snapshots/%s\n' "$c"
		for f; do
			b=$(blobname "$REPO/$c/$f")
			up=../../
			local rest=$f
			while [[ $rest == */* ]]; do
				up+=../
				rest=${rest#*/}
				printf 'd snapshots/%s/%s\n' "$c" "${f%/"$rest"}"
			done
			printf 'f blobs/%s\n' "$b"
			printf 'l snapshots/%s/%s %sblobs/%s\n' "$c" "$f" "$up" "$b"
		done
	} | sort -u
}

listing() {
	(cd "$M" && find . -mindepth 1 ! -path './refs*' -printf '%y %P %l\n' |
	    sed 's/ $//' | sort)
}

DEFAULT="config.json generation_config.json model.safetensors special_tokens_map.json tokenizer.json"

@test "llm-fetch: usage, help and version" {
	run -2 --separate-stderr llm-fetch --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -2 --separate-stderr llm-fetch
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr llm-fetch org/tiny extra
	run -2 --separate-stderr llm-fetch --include
	for bad in tiny ../x org/../x org/tiny/x /org/tiny 'org/ti ny' '.org/x' 'org/$(id)'; do
		run -2 --separate-stderr llm-fetch "$bad"
		[[ $stderr == *"not a repository id"* ]]
	done
	for bad in .. ../main main/../x /main 'a b' main.lock ''; do
		run -2 --separate-stderr llm-fetch -r "$bad" org/tiny
		[[ $stderr == *"not a revision"* ]]
	done
	run -0 --separate-stderr llm-fetch --help
	[[ $output == usage:* ]] && [ -z "$stderr" ]
	# a line for every option of the man page, as programs.bats checks
	# the C programs'
	help=$output
	for o in $(sed -n 's/^\.It //p' "$BATS_TEST_DIRNAME/../man/llm-fetch.1" |
	    grep -o 'Fl \\-[a-z0-9\\-]*' | sed 's/^Fl /-/; s/\\//g' | sort -u); do
		[[ $help == *"  $o"[=\ ]* || $help == *", $o"[=\ ]* ]] ||
			{ echo "llm-fetch --help lacks $o"; false; }
	done
	[[ $help == *"  -i, --include=GLOB "* && $help == *"  -r, --revision=REV "* ]]
	run -0 llm-fetch --version
	[[ $output == "llm-fetch (pipelm) "[0-9]* ]]
	if [ -w /dev/full ]; then
		for o in --help --version; do
			run -1 --separate-stderr bash -c "llm-fetch $o >/dev/full"
			[ "$stderr" = "llm-fetch: <stdout>: write error" ]
		done
	fi
	[ ! -s "$LOG" ]
}

@test "llm-fetch: a fresh download is laid out as huggingface_hub lays it out" {
	run -0 --separate-stderr llm-fetch org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	[ -z "$stderr" ]	# no progress bar: stderr is not a terminal
	# shellcheck disable=SC2086
	[ "$(listing)" = "$(layout "$C1" $DEFAULT)" ]
	for f in $DEFAULT; do
		cmp "$M/snapshots/$C1/$f" "$REPO/$C1/$f"
	done
	# refs/main: the commit, no newline
	[ "$(find "$M/refs" -printf '%y %P\n' | sort)" = "$(printf 'd \nf main')" ]
	[ "$(od -An -c "$M/refs/main" | tr -d ' \n')" = "$C1" ]
	# the token never sent: there was none
	run -1 grep -v 'auth=- ' "$LOG"
	# nothing pipelm does not read, no decoy from the repository card
	run -1 grep -e README -e onnx -e decoy "$LOG"
	# pipelm finds it by its repo id, and runs it
	want=$(echo 1 2 3 | llm-gen -m "$REPO/$C1" -n 4 --temp 0)
	run -0 --separate-stderr llm-gen -m org/tiny -n 4 --temp 0 <<<'1 2 3'
	[ "$output" = "$want" ]
}

@test "llm-fetch: the hub cache is HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub, as -m finds it" {
	# (every other test sets HF_HUB_CACHE beside HF_HOME: the first wins)
	want=$(echo 1 2 3 | llm-gen -m "$REPO/$C1" -n 4 --temp 0)
	unset HF_HUB_CACHE
	run -0 --separate-stderr llm-fetch org/tiny
	[ "$output" = "$HF_HOME/hub/models--org--tiny/snapshots/$C1" ]
	run -0 --separate-stderr llm-gen -m org/tiny -n 4 --temp 0 <<<'1 2 3'
	[ "$output" = "$want" ]
	# neither: under HOME, and the token of `hf auth login` there too
	unset HF_HOME
	export HOME=$BATS_TEST_TMPDIR/home
	printf 'sekrit' >"$CTL/token"
	mkdir -p "$HOME/.cache/huggingface"
	printf 'sekrit\n' >"$HOME/.cache/huggingface/token"
	run -0 --separate-stderr llm-fetch org/tiny
	[ "$output" = "$HOME/.cache/huggingface/hub/models--org--tiny/snapshots/$C1" ]
	grep -q '^hub .* auth=Bearer_sekrit ' "$LOG"
	run -0 --separate-stderr llm-gen -m org/tiny -n 4 --temp 0 <<<'1 2 3'
	[ "$output" = "$want" ]
	[ ! -e "$BATS_TEST_TMPDIR/hub" ]
}

@test "llm-fetch: a second run downloads nothing" {
	run -0 llm-fetch org/tiny
	: >"$LOG"
	before=$(listing; cat "$M/refs/main")
	run -0 --separate-stderr llm-fetch org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	[ -z "$stderr" ]
	# the file list only, as snapshot_download at a known commit
	[ "$(cut -d' ' -f1-3 "$LOG")" = "hub GET /api/models/org/tiny/revision/main" ]
	[ "$(listing; cat "$M/refs/main")" = "$before" ]
}

@test "llm-fetch: --revision: a tag gets its ref, a commit none" {
	run -0 --separate-stderr llm-fetch --revision v1 org/tiny
	[ "$output" = "$M/snapshots/$C2" ]
	[ "$(cat "$M/refs/v1")" = "$C2" ]
	[ ! -e "$M/refs/main" ]
	[ "$(listing)" = "$(layout "$C2" config.json model.safetensors tokenizer.json)" ]
	run -0 --separate-stderr llm-fetch -r "$C1" org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	[ "$(find "$M/refs" -type f -printf '%P\n')" = v1 ]
	grep -q "^hub GET /api/models/org/tiny/revision/$C1 " "$LOG"
	cmp "$M/snapshots/$C1/model.safetensors" "$REPO/$C1/model.safetensors"
	run -1 --separate-stderr llm-fetch --revision=nosuch org/tiny
	[[ $stderr == *"no revision nosuch"* ]]
	run -1 --separate-stderr llm-fetch org/other
	[[ $stderr == *401* ]]
	# a revision without one file pipelm reads
	run -1 --separate-stderr llm-fetch -r bare org/tiny
	[[ $stderr == *"none of the files pipelm reads at revision bare"* ]]
	[ ! -e "$M/refs/bare" ]
	run -0 --separate-stderr llm-fetch -r bare -i README.md org/tiny
	[[ $stderr == *"no model.safetensors"* ]]
	[ "$output" = "$M/snapshots/$C3" ]
}

@test "llm-fetch: a renamed repository: relative redirects followed, the cache under the name asked for" {
	printf 'org/old org/tiny' >"$CTL/renamed"
	HF_TOKEN=tok run -0 --separate-stderr llm-fetch org/old
	[ "$output" = "$HF_HUB_CACHE/models--org--old/snapshots/$C1" ]
	grep -q '^hub GET /api/models/org/old/revision/main auth=Bearer_tok ' "$LOG"
	grep -q '^hub GET /api/models/org/tiny/revision/main auth=Bearer_tok ' "$LOG"
	grep -q "^hub HEAD /org/tiny/resolve/$C1/config.json auth=Bearer_tok " "$LOG"
	M=$HF_HUB_CACHE/models--org--old
	# shellcheck disable=SC2086
	[ "$(listing)" = "$(layout "$C1" $DEFAULT)" ]
}

@test "llm-fetch: --include adds files, in folders too, with relative links" {
	run -0 --separate-stderr llm-fetch --include README.md -i 'extra/' \
	    --include='*.txt' -i onnx/model.safetensors org/tiny
	[ -z "$stderr" ]
	# shellcheck disable=SC2086
	[ "$(listing)" = "$(layout "$C1" $DEFAULT README.md extra/deep/file.txt \
	    onnx/model.safetensors données.txt empty.txt)" ]
	[ "$(readlink "$M/snapshots/$C1/extra/deep/file.txt")" = \
	    "../../../../blobs/$(git hash-object "$REPO/$C1/extra/deep/file.txt")" ]
	cmp "$M/snapshots/$C1/données.txt" "$REPO/$C1/données.txt"
	cmp "$M/snapshots/$C1/onnx/model.safetensors" "$REPO/$C1/onnx/model.safetensors"
	[ ! -s "$M/snapshots/$C1/empty.txt" ]
	# the name went out percent-encoded, as hf_hub_url quotes it
	grep -q "^hub GET /org/tiny/resolve/$C1/donn%C3%A9es.txt " "$LOG"
}

@test "llm-fetch: a repository of GGUF files alone: --include '*Q4_K_M.gguf', then -m ORG/NAME:Q4_K_M from the cache" {
	local r=$ROOT/org/tiny-GGUF g=$BATS_TEST_TMPDIR
	mkdir -p "$r/$C1" "$r/refs"
	printf '%s' "$C1" >"$r/refs/main"
	mkmodel -s 5 --hidden 64 --layers 1 --heads 2 --kv-heads 1 --inter 96 \
	    --vocab 260 --ctx 64 "$g/m"
	"$TOOLS/mkgguf" -t q4_K "$g/m" "$r/$C1/tiny-Q4_K_M.gguf"
	"$TOOLS/mkgguf" -t q8_0 "$g/m" "$r/$C1/tiny-Q8_0.gguf"
	printf '# tiny GGUF\n' >"$r/$C1/README.md"
	# without --include: nothing pipelm reads by default, said
	run -1 --separate-stderr llm-fetch org/tiny-GGUF
	[[ $stderr == *"org/tiny-GGUF: none of the files pipelm reads"* ]]
	run -0 --separate-stderr llm-fetch org/tiny-GGUF --include '*Q4_K_M.gguf'
	[ "$output" = "$HF_HUB_CACHE/models--org--tiny-GGUF/snapshots/$C1" ]
	[[ $stderr != *"no model.safetensors"* ]]
	cmp "$output/tiny-Q4_K_M.gguf" "$r/$C1/tiny-Q4_K_M.gguf"
	[ ! -e "$output/tiny-Q8_0.gguf" ]
	[ ! -e "$output/README.md" ]
	# the cache alone from here
	kill "$SRV"
	export HF_HUB_OFFLINE=1
	echo "5 9 22 7 100" >"$g/ids"
	llm-logits -m org/tiny-GGUF:Q4_K_M --all -f npy -o "$g/a.npy" <"$g/ids"
	llm-logits -m "$r/$C1/tiny-Q4_K_M.gguf" --all -f npy -o "$g/b.npy" <"$g/ids"
	cmp "$g/a.npy" "$g/b.npy"
	run -0 --separate-stderr llm-gen -m org/tiny-GGUF:q4_k_m -n 4 --seed 1 <"$g/ids"
	[ "$(wc -w <<<"$output")" -eq 4 ]
	run -1 --separate-stderr llm-logits -m org/tiny-GGUF:Q8_0 <"$g/ids"
	[[ $stderr == *"no GGUF file for Q8_0 in org/tiny-GGUF"* ]]
}

@test "llm-fetch: the token goes to the Hub, never to the CDN it redirects to" {
	printf 'sekrit' >"$CTL/token"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"401 Unauthorized"* && $stderr == *HF_TOKEN* ]]
	HF_TOKEN=wrong run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *401* && $stderr == *"the token"* ]]
	: >"$LOG"
	HF_TOKEN=sekrit run -0 --separate-stderr llm-fetch org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	grep -q '^hub .* auth=Bearer_sekrit ' "$LOG"
	run -1 grep '^hub .* auth=- ' "$LOG"
	grep -q '^cdn GET /blob/' "$LOG"
	run -1 grep '^cdn .* auth=Bearer' "$LOG"
	# else $HF_HOME/token, as `hf auth login` leaves it
	rm -rf "$HF_HUB_CACHE"
	mkdir -p "$HF_HOME"
	printf 'sekrit\n' >"$HF_HOME/token"
	: >"$LOG"
	run -0 --separate-stderr llm-fetch org/tiny
	grep -q '^hub .* auth=Bearer_sekrit ' "$LOG"
	run -1 grep '^cdn .* auth=Bearer' "$LOG"
	# a token that could smuggle a header is refused before any request
	: >"$LOG"
	HF_TOKEN=$'x\r\nX-Evil: 1' run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"not a token"* ]]
	[ ! -s "$LOG" ]
}

@test "llm-fetch: 401 and 403 say what the repository is and what to do" {
	echo 401 >"$CTL/status"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == "llm-fetch: org/tiny: 401 Unauthorized"* ]]
	[[ $stderr == *"private or gated"* && $stderr == *HF_TOKEN* ]]
	[ -z "$output" ]
	echo 401 GatedRepo >"$CTL/status"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == "llm-fetch: org/tiny: 401 Unauthorized"* ]]
	[[ $stderr == *"a gated repository: accept its conditions at $HF_ENDPOINT/org/tiny"* ]]
	[[ $stderr == *HF_TOKEN* ]]
	echo 403 >"$CTL/status"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == "llm-fetch: org/tiny: 403 Forbidden"* ]]
	[[ $stderr == *gated* && $stderr == *"accept its conditions"* ]]
	[[ $stderr == *"$HF_ENDPOINT/org/tiny"* ]]
	[ -z "$output" ]
	[ ! -e "$M/snapshots" ]
}

@test "llm-fetch: a cut connection leaves blobs/<etag>.incomplete, the next run resumes it with Range" {
	sha=$(blobname "$REPO/$C1/model.safetensors")
	echo 5000 >"$CTL/cut"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"model.safetensors: the connection was cut at 5000 of"* ]]
	[[ $stderr == *"again to resume"* ]]
	[ -z "$output" ]
	[ "$(stat -c %s "$M/blobs/$sha.incomplete")" -eq 5000 ]
	[ ! -e "$M/blobs/$sha" ]
	[ ! -e "$M/snapshots/$C1/model.safetensors" ]
	[ ! -e "$M/refs/main" ]	# main names the commit once its files are whole
	: >"$LOG"
	run -0 --separate-stderr llm-fetch org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	[ "$(grep -c '^cdn GET' "$LOG")" -eq 1 ]
	grep -q '^cdn GET .* range=bytes=5000-$' "$LOG"
	cmp "$M/blobs/$sha" "$REPO/$C1/model.safetensors"
	# shellcheck disable=SC2086
	[ "$(listing)" = "$(layout "$C1" $DEFAULT)" ]
	[ "$(cat "$M/refs/main")" = "$C1" ]
}

@test "llm-fetch: a server that ignores Range gets the file again from the start" {
	sha=$(blobname "$REPO/$C1/model.safetensors")
	echo 7000 >"$CTL/cut"
	run -1 llm-fetch org/tiny
	touch "$CTL/norange"
	: >"$LOG"
	run -0 --separate-stderr llm-fetch org/tiny
	[ "$(grep '^cdn GET' "$LOG" | sed 's/.* range=//')" = "$(printf 'bytes=7000-\n-')" ]
	cmp "$M/blobs/$sha" "$REPO/$C1/model.safetensors"
}

@test "llm-fetch: the CDN's errors are the CDN's" {
	echo 403 >"$CTL/cdnstatus"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"model.safetensors: HTTP 403 from http://127.0.0.1:$CDNPORT; run llm-fetch again"* ]]
	[[ $stderr != *gated* && $stderr != *sig=* ]]
	[ ! -e "$M/snapshots/$C1/model.safetensors" ]
}

@test "llm-fetch: a malformed file list is refused, whole" {
	for body in '{"sha": "'"$C1"'", "siblings": [{"rfilename": "config.json"}' \
	    '{"sha": "'"$C1"'", "siblings": [{"rfilename": "config.json"}]} x' \
	    '{"sha": "'"$C1"'", "siblings": [{"rfilename": "config.json\q"}]}' \
	    '{"sha": "'"$C1"'", "n": 01, "siblings": []}' \
	    "{\"sha\": \"$C1\", \"x\": $(printf '%.0s[' $(seq 600))"; do
		printf '%s' "$body" >"$CTL/info"
		run -1 --separate-stderr llm-fetch org/tiny
		[[ $stderr == *"the Hub's answer for revision main is not JSON"* ]]
	done
	# a commit only where a careless reader would look
	printf '{"cardData": {"sha": "%s"}, "siblings": [{"rfilename": "config.json"}]}' "$C1" >"$CTL/info"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"has no commit"* ]]
	printf '{"sha": "../../../../tmp", "siblings": [{"rfilename": "config.json"}]}' >"$CTL/info"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"has no commit"* ]]
	# escapes and surrogate pairs decoded, the file list as it is
	printf '{"sha":"%s","siblings":[{"rfilename":"con\\u0066ig.json"},{"x":{"rfilename":"README.md"}},{"rfilename":"\\ud83d\\ude00.txt"}]}' "$C1" >"$CTL/info"
	# (the stand-in has no such file: 404, EntryNotFound)
	run -1 --separate-stderr llm-fetch -i '*.txt' org/tiny
	[ "$(ls "$M/snapshots/$C1")" = config.json ]
	grep -q "^hub HEAD /org/tiny/resolve/$C1/%F0%9F%98%80.txt " "$LOG"
	[[ $stderr == *"llm-fetch: org/tiny: "$'\xf0\x9f\x98\x80'".txt: not in the repository" ]]
	[ ! -e "$M/refs/main" ]
}

@test "llm-fetch: a corrupt download never becomes a blob" {
	sha=$(blobname "$REPO/$C1/model.safetensors")
	touch "$CTL/corrupt"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"model.safetensors: the download's sha256 is"* ]]
	[[ $stderr == *"the Hub's is $sha"* ]]
	[ -z "$output" ]
	[ ! -e "$M/blobs/$sha" ]
	[ ! -e "$M/blobs/$sha.incomplete" ]
	[ ! -e "$M/snapshots/$C1/model.safetensors" ]
	[ ! -e "$M/refs/main" ]
	rm "$CTL/corrupt"
	: >"$LOG"
	run -0 llm-fetch org/tiny
	grep -q '^cdn GET .* range=-$' "$LOG"	# from the start, nothing resumed
	cmp "$M/blobs/$sha" "$REPO/$C1/model.safetensors"
	# a regular file whose content is not its ETag's git blob id
	rm -rf "$HF_HUB_CACHE"
	printf '"%s"' 0123456789012345678901234567890123456789 >"$CTL/etag"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"config.json: the download's git blob id is"* ]]
	[ -z "$(ls -A "$M/blobs")" ]
	[ ! -e "$M/snapshots/$C1/config.json" ]
}

@test "llm-fetch: HF_HUB_OFFLINE=1 makes no request and gives the cached snapshot" {
	run -1 --separate-stderr env HF_HUB_OFFLINE=1 llm-fetch org/tiny
	[[ $stderr == *"no snapshot of revision main"* && $stderr == *HF_HUB_OFFLINE* ]]
	[ -z "$output" ]
	run -0 llm-fetch org/tiny
	: >"$LOG"
	for v in 1 ON yes True; do
		run -0 --separate-stderr env HF_HUB_OFFLINE=$v llm-fetch org/tiny
		[ "$output" = "$M/snapshots/$C1" ]
		[ -z "$stderr" ]
	done
	run -0 env HF_HUB_OFFLINE=1 llm-fetch -r "$C1" org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	run -1 --separate-stderr env HF_HUB_OFFLINE=1 llm-fetch -r v1 org/tiny
	run -1 --separate-stderr env HF_HUB_OFFLINE=1 llm-fetch -r "$C2" org/tiny
	[ ! -s "$LOG" ]
	# HF_HUB_OFFLINE=0 is online
	run -0 env HF_HUB_OFFLINE=0 llm-fetch org/tiny
	[ -s "$LOG" ]
}

@test "llm-fetch: an unreachable Hub falls back on the cache, saying so" {
	run -0 llm-fetch org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	kill "$SRV"
	wait "$SRV" 2>/dev/null || true
	run -0 --separate-stderr llm-fetch org/tiny
	[ "$output" = "$M/snapshots/$C1" ]
	[[ $stderr == *"cannot reach $HF_ENDPOINT"* ]]
	run -1 --separate-stderr llm-fetch -r v1 org/tiny
	[[ $stderr == *"cannot reach"* && $stderr == *"not in the cache"* ]]
}

@test "llm-fetch: hostile names from the server are refused before any download" {
	for evil in ../evil.safetensors /tmp/evil.safetensors 'a/../../evil.txt' \
	    'a//b.txt' './x.txt' 'dir/' 'back\slash.txt'; do
		printf '["%s"]' "${evil//\\/\\\\}" >"$CTL/siblings"
		: >"$LOG"
		rm -rf "$HF_HUB_CACHE"
		run -1 --separate-stderr llm-fetch --include '*' org/tiny
		[[ $stderr == *"refusing the file name"* ]]
		[ "$(wc -l <"$LOG")" -eq 1 ]	# the file list, nothing else
		[ ! -e "$M/snapshots" ]
		[ ! -e "$M/blobs" ]
	done
	[ ! -e "$BATS_TEST_TMPDIR/evil.safetensors" ]
	[ ! -e /tmp/evil.safetensors ]
	# a control character (here a newline) in a name pipelm would read
	printf '["model-\\u000a.safetensors"]' >"$CTL/siblings"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"refusing the file name 'model-?.safetensors'"* ]]
	# names not asked for are no concern
	printf '["../evil.txt", "x\\u001b[2J"]' >"$CTL/siblings"
	run -0 --separate-stderr llm-fetch org/tiny
	[ -z "$stderr" ]
	# a header that does not name what was asked for is refused too
	printf '%s' "$C2" >"$CTL/commit"
	rm -rf "$HF_HUB_CACHE"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"answered for commit $C2, not $C1"* ]]
	[ ! -e "$M/blobs" ] || [ -z "$(ls -A "$M/blobs")" ]
	rm "$CTL/commit"
	printf '"../../../x"' >"$CTL/etag"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"not an ETag"* ]]
}

# ---- a malicious Hub (issue 31): every resource bounded ----

@test "llm-fetch: a body is cut at the size the Hub announced, and refused" {
	size=$(stat -c %s "$REPO/$C1/config.json")
	# 64 MiB, chunked, where the HEAD said a few hundred bytes
	echo 67108864 >"$CTL/flood"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"config.json: the server sent more than the $size bytes the Hub announced"* ]]
	[ -z "$output" ]
	[ -z "$(ls -A "$M/blobs")" ]	# nothing kept, not even a part
	# llm-fetch stopped reading: the stand-in could not send it all
	sent=$(sed -n 's/^hub flood sent=//p' "$LOG")
	[ "$sent" -lt 67108864 ]
	# the CDN's LFS content too
	rm "$CTL/flood"
	run -0 llm-fetch org/tiny
	sha=$(blobname "$REPO/$C1/model.safetensors")
	rm "$M/blobs/$sha" "$M/snapshots/$C1/model.safetensors"
	echo 67108864 >"$CTL/flood"
	: >"$LOG"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"model.safetensors: the server sent more than the $(stat -c %s "$REPO/$C1/model.safetensors") bytes"* ]]
	[ ! -e "$M/blobs/$sha.incomplete" ]
	[ "$(sed -n 's/^cdn flood sent=//p' "$LOG")" -lt 67108864 ]
}

@test "llm-fetch: a trickle is given up (a floor on the rate), what came kept to resume" {
	echo 10 >"$CTL/trickle"	# bytes a second
	HF_HUB_DOWNLOAD_TIMEOUT=2 run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == *"config.json: the download stayed under 1000 bytes/s for 2 s (HF_HUB_DOWNLOAD_TIMEOUT), at "*" of $(stat -c %s "$REPO/$C1/config.json") bytes; run llm-fetch again to resume" ]]
	[ -z "$output" ]
	[ ! -e "$M/snapshots/$C1/config.json" ]
	rm "$CTL/trickle"
	run -0 --separate-stderr llm-fetch org/tiny
	cmp "$M/snapshots/$C1/config.json" "$REPO/$C1/config.json"
	# huggingface_hub's time-outs, in seconds
	for bad in soon -1 0 1e3 86401; do
		HF_HUB_DOWNLOAD_TIMEOUT=$bad run -1 --separate-stderr llm-fetch org/tiny
		[[ $stderr == "llm-fetch: HF_HUB_DOWNLOAD_TIMEOUT: not a number of seconds"* ]]
		HF_HUB_ETAG_TIMEOUT=$bad run -1 --separate-stderr llm-fetch org/tiny
		[[ $stderr == "llm-fetch: HF_HUB_ETAG_TIMEOUT: not a number of seconds"* ]]
	done
	HF_HUB_DOWNLOAD_TIMEOUT=0.5 HF_HUB_ETAG_TIMEOUT=30 run -0 llm-fetch org/tiny
}

@test "llm-fetch: the repository info is capped as it comes, and read in one piece" {
	# chunked, so that no Content-Length tells curl it is too long
	echo 134217728 >"$CTL/infoflood"
	run -1 --separate-stderr llm-fetch org/tiny
	[ "$stderr" = "llm-fetch: org/tiny: the Hub's answer for revision main is larger than 64 MiB" ]
	[ "$(sed -n 's/^hub infoflood sent=//p' "$LOG")" -lt 134217728 ]
	rm "$CTL/infoflood"
	# 4 million newlines: read a line at a time and joined, hours of
	# work; in one piece, well under a CPU second.  A bound of work, not
	# of time: 60 CPU seconds for each process (awk is the one that
	# reads it).
	{
		printf '{"sha": "%s", "siblings": [{"rfilename": "config.json"}],' "$C1"
		head -c 4000000 /dev/zero | tr '\0' '\n'
		printf '"x": "%s"}' "$(head -c 100000 /dev/zero | tr '\0' a)"
	} >"$CTL/info"
	run -0 --separate-stderr bash -c 'ulimit -t 60 && exec llm-fetch org/tiny'
	[ "$output" = "$M/snapshots/$C1" ]
	[ "$(ls "$M/snapshots/$C1")" = config.json ]
}

@test "llm-fetch: the token never on disk; the temporary folder goes, whatever signals come" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$TMPDIR"
	printf 'sekrit' >"$CTL/token"
	echo 10 >"$CTL/trickle"
	export HF_TOKEN=sekrit HF_HUB_DOWNLOAD_TIMEOUT=600
	llm-fetch org/tiny >/dev/null 2>&1 3>&- &
	pid=$!
	# the download under way (the trickle holds it there)
	for _ in $(seq 600); do
		grep -q '^hub GET /org/tiny/resolve/' "$LOG" && break
		sleep 0.1
	done
	grep -q '^hub GET /org/tiny/resolve/.* auth=Bearer_sekrit ' "$LOG"
	[ -n "$(ls -A "$TMPDIR")" ]	# its temporary folder
	run -1 grep -rl sekrit "$TMPDIR"	# and no token in it
	# two TERMs, as timeout(1) sends them (to the process, then its group);
	# the first may already have ended it, so the second may find no one
	kill -TERM "$pid"
	kill -TERM "$pid" 2>/dev/null || :
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	[ -z "$(ls -A "$TMPDIR")" ]
	for _ in 1 2 3; do
		run -124 timeout 2 llm-fetch org/tiny
		[ -z "$(ls -A "$TMPDIR")" ]
	done
}

@test "llm-fetch: what the server sends reaches the terminal through one sanitizer" {
	# names holding U+009B (CSI, in C1) and U+202E (right-to-left
	# override), among the files asked for; the stand-in has neither
	printf '["x\\u009b2Jy.txt", "\\u202eevil.txt"]' >"$CTL/siblings"
	run -1 --separate-stderr llm-fetch -i 'x*' org/tiny
	[ "$stderr" = "llm-fetch: org/tiny: x?2Jy.txt: not in the repository" ]
	run -1 --separate-stderr llm-fetch -i '*evil*' org/tiny
	[ "$stderr" = "llm-fetch: org/tiny: ?evil.txt: not in the repository" ]
	# an error message: ESC, C1, a bidirectional control and malformed
	# UTF-8 become "?", UTF-8 stays
	rm "$CTL/siblings"
	printf 'gone \033[31m\302\2332J\342\200\256 \300\257 \351t\303\251' >"$CTL/errmsg"
	echo 401 >"$CTL/status"
	run -1 --separate-stderr llm-fetch org/tiny
	[[ $stderr == "llm-fetch: org/tiny: 401 Unauthorized (gone ?[31m?2J? ?? ?t"$'\303\251'"): "* ]]
}

@test "llm-fetch: ids as the Hub has them: no -- (a--b/c and a/b--c would share models--a--b--c)" {
	for bad in a--b/c a/b--c org/x- org-/x org/.x org/x.git \
	    "org/$(printf 'n%.0s' $(seq 97))"; do
		run -2 --separate-stderr llm-fetch "$bad"
		[[ $stderr == "llm-fetch: $bad: not a repository id (ORG/NAME)"* ]]
	done
	[ ! -s "$LOG" ]
	# one "-" or "." inside, and 96 characters, are ids (the stand-in has
	# no such repository: 401)
	for good in my-org/a.b_c o/x-y-z "org/$(printf 'n%.0s' $(seq 96))"; do
		run -1 --separate-stderr llm-fetch "$good"
		[[ $stderr == *"401 Unauthorized"* ]]
	done
}

@test "llm-fetch: a progress bar on a terminal" {
	need_tty
	run -0 script -qec "llm-fetch org/tiny" /dev/null
	[[ $output == *model.safetensors*100%*"/s  in "[0-9]:[0-9][0-9]* ]]
	[[ $output == *"$M/snapshots/$C1"* ]]
}
