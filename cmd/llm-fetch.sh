#!/bin/bash
# llm-fetch: download a model repository from the HuggingFace Hub into the
# HuggingFace cache, laid out as huggingface_hub lays it out, so that
# pipelm's -m ORG/NAME, transformers and llama.cpp's -hf all find it.
#
# The steps are snapshot_download's and hf_hub_download's
# (huggingface_hub _snapshot_download.py, file_download.py):
#   GET  $HF_ENDPOINT/api/models/ORG/NAME/revision/REV   sha, siblings[].rfilename
#   HEAD $HF_ENDPOINT/ORG/NAME/resolve/COMMIT/PATH       X-Repo-Commit, ETag or
#        (LFS) a redirect with X-Linked-Etag (the sha256) and X-Linked-Size
#   GET  the file (LFS: the redirect's Location) into blobs/<etag>.incomplete,
#        resumed with Range, checked, renamed to blobs/<etag>;
#   snapshots/COMMIT/PATH -> ../../blobs/<etag>; refs/REV holds COMMIT.
# Everything the server sends is checked before it names a file here.
set -u
shopt -s extglob
export LC_ALL=C
prog=${0##*/}
version=@VERSION@

usage() {
	if [ "$1" -ne 0 ]; then
		printf 'usage: %s [-i glob ...] [-r rev] org/name\n' "$prog" >&2
		exit "$1"
	fi
	# a failed write of the help is an error, as in the C programs
	printf 'usage: %s [-i glob ...] [-r rev] org/name

Download the model repository org/name from the HuggingFace Hub into the
HuggingFace cache ($HF_HUB_CACHE, else $HF_HOME/hub, else
~/.cache/huggingface/hub) and write its snapshot folder.

  -i, --include=GLOB    fetch the files matching GLOB too (repeatable;
                        "dir/" is a folder, "*" everything)
  -r, --revision=REV    the branch, tag or commit (default main)
  -h, --help            print this help and exit
      --version         print the version and exit

HF_ENDPOINT is the Hub, HF_TOKEN (else $HF_HOME/token) the access token,
HF_HUB_OFFLINE=1 makes no request (llm-fetch(1)).
' "$prog" 2>/dev/null || die "write <stdout>: failed"
	exit 0
}

# Printable: what the server sent, made safe for a terminal.
printable() {
	printf '%s' "$1" | tr -c '\040-\176' '?'
}

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

warn() {
	printf '%s: %s\n' "$prog" "$*" >&2
}

# ---- options ----
includes=()
rev=main
while [ $# -gt 0 ]; do
	case $1 in
	-i|--include)
		[ $# -ge 2 ] || { warn "option $1 needs an argument"; usage 2; }
		includes+=("$2"); shift 2 ;;
	--include=*) includes+=("${1#*=}"); shift ;;
	-i?*) includes+=("${1#-i}"); shift ;;
	-r|--revision)
		[ $# -ge 2 ] || { warn "option $1 needs an argument"; usage 2; }
		rev=$2; shift 2 ;;
	--revision=*) rev=${1#*=}; shift ;;
	-r?*) rev=${1#-r}; shift ;;
	-h|--help) usage 0 ;;
	--version) printf '%s (pipelm) %s\n' "$prog" "$version" 2>/dev/null ||
		die "write <stdout>: failed"; exit 0 ;;
	--) shift; break ;;
	-?*) warn "unrecognized option '$(printable "$1")'"; usage 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage 2
repo=$1

# ORG/NAME as lib/disk/mdir.c accepts it (the Hub's own rule is a little wider).
if ! [[ $repo =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*/[A-Za-z0-9_][A-Za-z0-9._-]*$ ]] ||
    [[ $repo == *..* ]]; then
	warn "$(printable "$repo"): not a repository id (ORG/NAME)"
	usage 2
fi
# A branch, a tag or a commit: no "..", no empty or hidden path segment.
if ! [[ $rev =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$ ]] ||
    [[ $rev == *..* || $rev == *.lock || $rev == *.tmp ]]; then
	warn "$(printable "$rev"): not a revision"
	usage 2
fi

# ---- environment (huggingface_hub constants.py; the cache as lib/disk/mdir.c finds it) ----
istrue() {
	case ${1^^} in 1|ON|YES|TRUE) return 0 ;; *) return 1 ;; esac
}
endpoint=${HF_ENDPOINT:-https://huggingface.co}
endpoint=${endpoint%%+(/)}
[[ $endpoint =~ ^https?://[A-Za-z0-9.:_-]+(/[A-Za-z0-9._~/-]*)?$ ]] ||
	die "HF_ENDPOINT: not an http or https URL: $(printable "$endpoint")"
origin=$(printf '%s' "$endpoint" | sed -E 's|^(https?://[^/]+).*|\1|')
if [ -n "${HF_HUB_CACHE:-}" ]; then
	hub=$HF_HUB_CACHE
elif [ -n "${HF_HOME:-}" ]; then
	hub=$HF_HOME/hub
elif [ -n "${HOME:-}" ]; then
	hub=$HOME/.cache/huggingface/hub
else
	die "no HuggingFace cache: HOME is not set"
fi
hfhome=${HF_HOME:-${HOME:-}/.cache/huggingface}
base=$hub/models--${repo%%/*}--${repo#*/}
offline=0
if istrue "${HF_HUB_OFFLINE:-}" || istrue "${TRANSFORMERS_OFFLINE:-}"; then
	offline=1
fi
iscommit() {
	[[ $1 =~ ^[0-9a-f]{40}$ ]]
}

# The cached snapshot of $rev (a commit, else refs/$rev), or nothing.
cached() {
	local c=
	if iscommit "$rev"; then
		c=$rev
	elif [ -f "$base/refs/$rev" ]; then
		c=$(head -c 64 "$base/refs/$rev")
	fi
	iscommit "$c" && [ -d "$base/snapshots/$c" ] && printf '%s\n' "$base/snapshots/$c"
}

# HF_HUB_OFFLINE: what hf_hub_download does with local_files_only, no
# request at all.
if [ "$offline" = 1 ]; then
	cached || die "$repo: no snapshot of revision $rev in the HuggingFace cache ($hub), and HF_HUB_OFFLINE is set: unset it to download"
	exit 0
fi

command -v curl >/dev/null 2>&1 || die "curl is not installed (llm-fetch downloads with it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/llm-fetch.XXXXXX") || die "cannot make a temporary folder"
cpid=
cleanup() {
	if [ -n "$cpid" ]; then
		kill "$cpid" 2>/dev/null
		[ "${tty:-0}" = 1 ] && printf '\n' >&2
	fi
	rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# The token: HF_TOKEN, else the file `hf auth login` writes.  It goes to
# curl in a file (never on a command line) and only to $origin.
token=${HF_TOKEN:-}
if [ -z "$token" ]; then
	tokfile=${HF_TOKEN_PATH:-$hfhome/token}
	[ -r "$tokfile" ] && token=$(head -c 4096 "$tokfile" | tr -d ' \t\r\n')
fi
if [ -n "$token" ]; then
	[[ $token =~ ^[A-Za-z0-9._~+/=-]+$ ]] || die "HF_TOKEN: not a token (characters a token does not have)"
	(umask 077 && printf 'Authorization: Bearer %s\n' "$token" >"$tmp/auth") ||
		die "cannot write to $tmp"
fi

copt=(-sS -g --proto "=http,https" --proto-redir "=http,https" --connect-timeout 30
	-A "llm-fetch/$version (pipelm)" -H 'Accept-Encoding: identity')

# request METHOD URL OUT: a request to the Hub, with the token; relative
# redirects (a renamed repository) followed, an absolute one not (it is
# where an LFS file's content is).  The last response's headers in $tmp/h,
# its body in OUT; sets url (the last one asked), code and rc.
request() {
	local m=() a=() loc hops=0
	[ "$1" = HEAD ] && m=(-I) || m=(--max-filesize 67108864)
	[ -n "$token" ] && a=(-H "@$tmp/auth")
	url=$2
	for ((;;)); do
		code=$(curl "${copt[@]}" --max-time 300 "${m[@]}" "${a[@]}" \
		    -D "$tmp/h" -o "$3" -w '%{http_code}' --url "$url" 2>"$tmp/err")
		rc=$?
		[ "$rc" -eq 0 ] && [[ $code == 3* ]] || return 0
		loc=$(hdr Location)
		[[ $loc == /* && $loc != //* ]] || return 0
		[[ $loc != *[[:cntrl:][:space:]]* ]] ||
			die "$repo: a redirect to $(printable "$loc")"
		[ $((hops += 1)) -le 5 ] || die "$repo: too many redirects"
		url=$origin$loc
	done
}

# hdr NAME: the value of a header of the last response in $tmp/h.
hdr() {
	awk -v want="$1" '
	BEGIN { want = tolower(want) }
	{ sub(/\r$/, "") }
	/^HTTP\// { v = ""; next }
	{
		i = index($0, ":")
		if (i && tolower(substr($0, 1, i - 1)) == want) {
			v = substr($0, i + 1)
			sub(/^[ \t]+/, "", v)
			sub(/[ \t]+$/, "", v)
		}
	}
	END { print v }' "$tmp/h"
}

curlerr() {
	printable "$(head -n 1 "$tmp/err")"
}

# What a failed response means (huggingface_hub utils/_http.py
# hf_raise_for_status: X-Error-Code, X-Error-Message).  $1: what was asked.
httperr() {
	local xcode xmsg
	xcode=$(printable "$(hdr X-Error-Code)")
	xmsg=$(printable "$(hdr X-Error-Message)")
	case $code in
	401)
		[ "$xcode" = GatedRepo ] && [ -z "$token" ] &&
			die "$repo: 401 Unauthorized${xmsg:+ ($xmsg)}: a gated repository: accept its conditions at $origin/$repo while logged in, then set HF_TOKEN to a token of that account (from $origin/settings/tokens) or put one in $hfhome/token"
		if [ -n "$token" ]; then
			die "$repo: 401 Unauthorized${xmsg:+ ($xmsg)}: the repository does not exist, or it is private or gated and the token (HF_TOKEN or $hfhome/token) may not read it: check the name, and use a token of an account that has access ($origin/settings/tokens)"
		fi
		die "$repo: 401 Unauthorized${xmsg:+ ($xmsg)}: the repository does not exist, or it is private or gated: check the name; if you may read it, set HF_TOKEN to a token (from $origin/settings/tokens) or put one in $hfhome/token"
		;;
	403)
		die "$repo: 403 Forbidden${xmsg:+ ($xmsg)}: a gated repository: accept its conditions at $origin/$repo while logged in, then use a token of that account (HF_TOKEN or $hfhome/token); a fine-grained token needs read access to public gated repositories"
		;;
	404)
		case $xcode in
		RevisionNotFound) die "$repo: no revision $rev" ;;
		EntryNotFound) die "$repo: $1: not in the repository" ;;
		esac
		die "$repo: $1: 404 Not Found${xmsg:+ ($xmsg)}"
		;;
	429) die "$repo: 429 Too Many Requests: the Hub limits the rate; try again later" ;;
	000) die "$repo: $1: no HTTP response" ;;
	esac
	die "$repo: $1: HTTP $code${xmsg:+ ($xmsg)}"
}

# urlenc S [path]: percent-encoding as Python's urllib.parse.quote; "/"
# kept with "path" (hf_hub_url quotes the file name so, the revision with
# safe="").
urlenc() {
	local s=$1 out="" c h i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[A-Za-z0-9._~-]) out+=$c ;;
		/) if [ "${2:-}" = path ]; then out+=/; else out+=%2F; fi ;;
		*) printf -v h '%%%02X' "'$c"; out+=$h ;;
		esac
	done
	printf '%s' "$out"
}

# The scheme and host:port of a URL.
urlorigin() {
	printf '%s' "$1" | sed -E 's|^([A-Za-z]+://[^/?#]+).*|\1|'
}

# ---- the file list ----
info=$endpoint/api/models/$repo/revision/$(urlenc "$rev")
request GET "$info" "$tmp/info"
if [ "$rc" -ne 0 ] || [[ $code == 5* ]]; then
	# No answer: as snapshot_download, fall back on the cache.
	why=$(curlerr)
	[ "$rc" -eq 0 ] && why="HTTP $code"
	if snap=$(cached); then
		warn "cannot reach $origin ($why); using the cached snapshot"
		printf '%s\n' "$snap"
		exit 0
	fi
	die "$repo: cannot reach $origin ($why), and revision $rev is not in the cache ($hub)"
fi
[ "$code" = 200 ] || httperr "revision $rev"

# A JSON reader for the repository info: prints "sha<TAB>value" for the
# top-level sha and "file<TAB>name" for each top-level siblings[].rfilename
# ("bad<TAB>name" for a name holding a control character, shown with "?"),
# ignoring everything else; exits 1 on malformed JSON.
# shellcheck disable=SC2016
jsonlist='
function fail(m) { printf "offset %d: %s\n", pos, m > "/dev/stderr"; exit 1 }
function ws(   c) {
	while (pos <= n) {
		c = substr(s, pos, 1)
		if (c != " " && c != "\t" && c != "\n" && c != "\r") break
		pos++
	}
}
function hex4(   i, d, v) {
	v = 0
	for (i = 0; i < 4; i++) {
		d = index("0123456789abcdef", tolower(substr(s, pos + i, 1)))
		if (!d) fail("bad \\u escape")
		v = v * 16 + d - 1
	}
	pos += 4
	return v
}
function utf8(cp) {
	if (cp < 128) return sprintf("%c", cp)
	if (cp < 2048) return sprintf("%c%c", 192 + int(cp / 64), 128 + cp % 64)
	if (cp < 65536) return sprintf("%c%c%c", 224 + int(cp / 4096), 128 + int(cp / 64) % 64, 128 + cp % 64)
	return sprintf("%c%c%c%c", 240 + int(cp / 262144), 128 + int(cp / 4096) % 64, 128 + int(cp / 64) % 64, 128 + cp % 64)
}
function str(   out, c, e, cp, lo, start, run) {
	pos++
	out = ""
	bad = 0
	for (;;) {
		if (pos > n) fail("unterminated string")
		c = substr(s, pos, 1)
		if (c == "\"") { pos++; return out }
		if (c == "\\") {
			e = substr(s, pos + 1, 1)
			pos += 2
			if (e == "\"" || e == "\\" || e == "/") out = out e
			else if (e == "b" || e == "f" || e == "n" || e == "r" || e == "t") { out = out "?"; bad = 1 }
			else if (e == "u") {
				cp = hex4()
				if (cp >= 55296 && cp < 56320) {
					if (substr(s, pos, 2) != "\\u") fail("lone surrogate")
					pos += 2
					lo = hex4()
					if (lo < 56320 || lo >= 57344) fail("lone surrogate")
					cp = 65536 + (cp - 55296) * 1024 + (lo - 56320)
				} else if (cp >= 56320 && cp < 57344) fail("lone surrogate")
				if (cp < 32 || cp == 127) { out = out "?"; bad = 1 }
				else out = out utf8(cp)
			} else fail("bad escape")
			continue
		}
		start = pos
		while (pos <= n && (c = substr(s, pos, 1)) != "\"" && c != "\\") pos++
		run = substr(s, start, pos - start)
		if (run ~ ctl) { gsub(ctl, "?", run); bad = 1 }
		out = out run
	}
}
function lit(   start, t) {
	start = pos
	while (pos <= n && index("+-0123456789.eEtrufalsn", substr(s, pos, 1))) pos++
	t = substr(s, start, pos - start)
	if (t !~ /^(true|false|null|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?)$/) fail("not JSON")
}
function value(ctx, depth,   c, v) {
	if (depth > 512) fail("nested too deep")
	ws()
	c = substr(s, pos, 1)
	if (c == "{") obj(ctx, depth)
	else if (c == "[") arr(ctx, depth)
	else if (c == "\"") {
		v = str()
		if (ctx == "sha") print "sha\t" v
		else if (ctx == "rfilename") print (bad ? "bad" : "file") "\t" v
	} else lit()
}
function obj(ctx, depth,   c, k, cc) {
	pos++
	ws()
	if (substr(s, pos, 1) == "}") { pos++; return }
	for (;;) {
		ws()
		if (substr(s, pos, 1) != "\"") fail("expected a member name")
		k = str()
		ws()
		if (substr(s, pos, 1) != ":") fail("expected :")
		pos++
		cc = ""
		if (ctx == "root" && k == "sha") cc = "sha"
		else if (ctx == "root" && k == "siblings") cc = "sibs"
		else if (ctx == "sib" && k == "rfilename") cc = "rfilename"
		value(cc, depth + 1)
		ws()
		c = substr(s, pos++, 1)
		if (c == "}") return
		if (c != ",") fail("expected , or }")
	}
}
function arr(ctx, depth,   c, cc) {
	pos++
	cc = ctx == "sibs" ? "sib" : ""
	ws()
	if (substr(s, pos, 1) == "]") { pos++; return }
	for (;;) {
		value(cc, depth + 1)
		ws()
		c = substr(s, pos++, 1)
		if (c == "]") return
		if (c != ",") fail("expected , or ]")
	}
}
BEGIN { ctl = "[" sprintf("%c", 1) "-" sprintf("%c", 31) sprintf("%c", 127) "]" }
{ s = s $0 "\n" }
END {
	n = length(s)
	pos = 1
	value("root", 0)
	ws()
	if (pos <= n) fail("more after the end")
}'
awk "$jsonlist" "$tmp/info" >"$tmp/list" 2>"$tmp/err" ||
	die "$repo: the Hub's answer for revision $rev is not JSON: $(curlerr)"

commit=
names=()
bads=()
declare -A seen=()
while IFS= read -r line; do
	case $line in
	sha$'\t'*) [ -n "$commit" ] || commit=${line#*$'\t'} ;;
	file$'\t'*)
		f=${line#*$'\t'}
		[ -n "${seen[x$f]:-}" ] || names+=("$f")
		seen[x$f]=1 ;;
	bad$'\t'*) bads+=("${line#*$'\t'}") ;;
	esac
done <"$tmp/list"
iscommit "$commit" || die "$repo: the Hub's answer for revision $rev has no commit (sha: $(printable "$commit"))"
if iscommit "$rev" && [ "$commit" != "$rev" ]; then
	die "$repo: asked for commit $rev, the Hub answered for $commit"
fi

# ---- what to fetch: what pipelm reads (the weights as transformers
# saves them, at the top of the repository), and --include ----
wanted() {
	local p
	case $1 in
	*/*) ;;
	config.json|generation_config.json|tokenizer.json|tokenizer_config.json|\
	special_tokens_map.json|chat_template.jinja|model.safetensors|\
	model.safetensors.index.json|model-*.safetensors)
		return 0 ;;
	esac
	for p in "${includes[@]}"; do
		# filter_repo_objects: a pattern ending in "/" means the folder
		[[ $p == */ ]] && p+='*'
		# shellcheck disable=SC2053
		[[ $1 == $p ]] && return 0
	done
	return 1
}

# A name from the server becomes a path only if it stays in the snapshot
# (as _validate_relative_filename and _get_pointer_path).
safename() {
	local seg segs
	[ -n "$1" ] && [[ $1 != /* && $1 != */ && $1 != *\\* && $1 != *//* ]] || return 1
	IFS=/ read -r -a segs <<<"$1"
	for seg in "${segs[@]}"; do
		[[ $seg == . || $seg == .. || -z $seg ]] && return 1
	done
	[ ${#1} -le 1024 ]
}

files=()
for f in "${bads[@]}"; do
	wanted "$f" && die "$repo: refusing the file name '$f': it holds a control character"
done
for f in "${names[@]}"; do
	wanted "$f" || continue
	safename "$f" || die "$repo: refusing the file name '$(printable "$f")': it does not stay inside the snapshot"
	files+=("$f")
done
[ ${#files[@]} -gt 0 ] ||
	die "$repo: none of the files pipelm reads at revision $rev (--include names others)"
have_weights=0
for f in "${names[@]}"; do
	[[ $f == model.safetensors || $f == model.safetensors.index.json ]] && have_weights=1
done
[ "$have_weights" = 1 ] ||
	warn "$repo: no model.safetensors or model.safetensors.index.json at revision $rev (pipelm reads only safetensors)"

snap=$base/snapshots/$commit
command -v flock >/dev/null 2>&1 && haveflock=1 || haveflock=0
tty=0
[ -t 2 ] && tty=1

# human N: a byte count for the progress bar.
human() {
	local n=$1
	if [ "$n" -lt 1000 ]; then printf '%d B' "$n"
	elif [ "$n" -lt 1000000 ]; then printf '%d.%d kB' $((n / 1000)) $((n % 1000 / 100))
	elif [ "$n" -lt 1000000000 ]; then printf '%d.%d MB' $((n / 1000000)) $((n % 1000000 / 100000))
	else printf '%d.%d GB' $((n / 1000000000)) $((n % 1000000000 / 100000000))
	fi
}

# meter NAME FILE SIZE HAVE0 T0 [final]: one line of the progress bar,
# redrawn: how much, how fast, the time left (at the end, the time taken).
meter() {
	local cur now el rate left pct fill bar
	cur=$(stat -c %s -- "$2" 2>/dev/null) || cur=0
	now=${EPOCHREALTIME/./}
	el=$((now - $5))
	rate=0
	[ "$el" -gt 0 ] && rate=$(((cur - $4) * 1000000 / el))
	if [ -n "${6:-}" ]; then
		left=$((el / 1000000))
		left=$(printf 'in %d:%02d' $((left / 60)) $((left % 60)))
	elif [ "$rate" -gt 0 ]; then
		left=$((($3 - cur) / rate))
		left=$(printf '%d:%02d left' $((left / 60)) $((left % 60)))
	else
		left='-:-- left'
	fi
	pct=100
	[ "$3" -gt 0 ] && pct=$((cur * 100 / $3))
	fill=$((pct / 5))
	printf -v bar '%*s' "$fill" ''
	bar=${bar// /#}
	printf '\r%-20.20s %3d%% [%-20s] %s / %s  %s/s  %s\033[K' \
	    "$(printable "$1")" "$pct" "$bar" "$(human "$cur")" "$(human "$3")" \
	    "$(human "$rate")" "$left" >&2
}

# getblob NAME URL AUTH SIZE INC: GET into INC, resuming what it holds.
getblob() {
	local have a=() r=() t0 retried=0
	while :; do
		have=$(stat -c %s -- "$5") || die "cannot read $5"
		a=()
		r=()
		[ "$3" = 1 ] && [ -n "$token" ] && a=(-H "@$tmp/auth")
		[ "$have" -gt 0 ] && r=(-C "$have")
		t0=${EPOCHREALTIME/./}
		# -L for the CDN's own redirects: curl sends a -H Authorization
		# to the host and port it was given only (curl 7.83 and later).
		curl "${copt[@]}" -f -L --max-redirs 5 --speed-limit 1 --speed-time 120 \
		    "${a[@]}" "${r[@]}" -D "$tmp/h" -o "$5" -w '%{http_code}' --url "$2" \
		    >"$tmp/code" 2>"$tmp/err" &
		cpid=$!
		if [ "$tty" = 1 ]; then
			while kill -0 "$cpid" 2>/dev/null; do
				meter "$1" "$5" "$4" "$have" "$t0"
				sleep 0.25
			done
		fi
		wait "$cpid"
		rc=$?
		cpid=
		code=$(head -c 3 "$tmp/code")
		if [ "$rc" -eq 33 ] && [ "$retried" = 0 ]; then
			# the server ignored Range: start again from nothing
			: >"$5"
			retried=1
			continue
		fi
		break
	done
	if [ "$tty" = 1 ]; then
		meter "$1" "$5" "$4" "$have" "$t0" final
		printf '\n' >&2
	fi
	case $rc in
	0) ;;
	18|56)
		die "$repo: $1: the connection was cut at $(stat -c %s -- "$5") of $4 bytes; run $prog again to resume" ;;
	22)
		# the Hub's own answer says what it means; the CDN's is its own
		[ "$3" = 1 ] && httperr "$1"
		die "$repo: $1: HTTP $code from $(urlorigin "$2"); run $prog again" ;;
	28) die "$repo: $1: the download stalled at $(stat -c %s -- "$5") of $4 bytes; run $prog again to resume" ;;
	*) die "$repo: $1: $(curlerr)" ;;
	esac
}

# check NAME FILE ETAG: the content is what the ETag names: an LFS file's
# sha256, a regular file's git blob id (sha1 of "blob SIZE\0" and the
# content).  huggingface_hub checks only the size; a wrong file here never
# becomes a blob.
check() {
	local sum size
	if [ ${#3} -eq 64 ]; then
		sum=$(sha256sum <"$2") || die "cannot read $2"
	else
		size=$(stat -c %s -- "$2") || die "cannot read $2"
		sum=$({ printf 'blob %d\0' "$size"; cat -- "$2"; } | sha1sum) || die "cannot read $2"
	fi
	sum=${sum%% *}
	[ "$sum" = "${3,,}" ] && return 0
	rm -f -- "$2"
	if [ ${#3} -eq 64 ]; then
		die "$repo: $1: the download's sha256 is $sum, the Hub's is ${3,,}: it was removed; run $prog again"
	fi
	die "$repo: $1: the download's git blob id is $sum, the Hub's ETag is ${3,,}: it was removed; run $prog again"
}

# link NAME ETAG: snapshots/COMMIT/NAME -> ../../blobs/ETAG (relative, a
# "../" per folder of NAME, as os.path.relpath makes it), put in place by
# a rename.
link() {
	local ptr=$snap/$1 up=../../ rest=$1
	while [[ $rest == */* ]]; do
		up+=../
		rest=${rest#*/}
	done
	mkdir -p -- "${ptr%/*}" || die "cannot make ${ptr%/*}"
	ln -sfn -- "${up}blobs/$2" "$ptr.$$.tmp" &&
		mv -fT -- "$ptr.$$.tmp" "$ptr" || die "cannot link $ptr"
}

# fetch NAME: hf_hub_download of one file at $commit.
fetch() {
	local name=$1 etag size blob inc dl auth=1
	[ -e "$snap/$name" ] && return 0
	request HEAD "$endpoint/$repo/resolve/$commit/$(urlenc "$name" path)" /dev/null
	[ "$rc" -eq 0 ] || die "$repo: $name: $(curlerr)"
	[[ $code == 2* || $code == 3* ]] || httperr "$name"
	[ "$(hdr X-Repo-Commit)" = "$commit" ] ||
		die "$repo: $name: the Hub answered for commit $(printable "$(hdr X-Repo-Commit)"), not $commit"
	etag=$(hdr X-Linked-Etag)
	[ -n "$etag" ] || etag=$(hdr ETag)
	etag=${etag#W/}
	etag=${etag//\"/}
	[[ $etag =~ ^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$ ]] ||
		die "$repo: $name: not an ETag the Hub sends: $(printable "$etag")"
	size=$(hdr X-Linked-Size)
	[ -n "$size" ] || [[ $code == 3* ]] || size=$(hdr Content-Length)
	[[ $size =~ ^[0-9]{1,15}$ ]] || die "$repo: $name: no size in the Hub's answer"
	dl=$url
	if [[ $code == 3* ]]; then
		dl=$(hdr Location)
		[[ $dl =~ ^https?://[^/?#[:space:]]+ && $dl != *[[:cntrl:][:space:]]* ]] ||
			die "$repo: $name: a redirect to $(printable "$dl")"
		[[ $endpoint == https:* && $dl == http:* ]] &&
			die "$repo: $name: refusing a redirect from https to plain http"
		# the token goes to the Hub only, never to the CDN it sends us to
		[ "$(urlorigin "$dl")" = "$(urlorigin "$url")" ] || auth=0
	fi
	blob=$base/blobs/$etag
	inc=$blob.incomplete
	mkdir -p -- "$base/blobs" || die "cannot make $base/blobs"
	if [ ! -f "$blob" ]; then
		if [ "$haveflock" = 1 ]; then
			# the lock file huggingface_hub takes (filelock: flock(2))
			mkdir -p -- "$hub/.locks/${base##*/}" &&
				exec 9>"$hub/.locks/${base##*/}/$etag.lock" ||
				die "cannot lock $hub/.locks/${base##*/}/$etag.lock"
			flock 9
		fi
		if [ ! -f "$blob" ]; then
			[ -f "$inc" ] || : >"$inc" || die "cannot write $inc"
			[ "$(stat -c %s -- "$inc")" -le "$size" ] || : >"$inc"
			[ "$(stat -c %s -- "$inc")" -eq "$size" ] || getblob "$name" "$dl" "$auth" "$size" "$inc"
			local got
			got=$(stat -c %s -- "$inc")
			if [ "$got" -ne "$size" ]; then
				[ "$got" -gt "$size" ] && rm -f -- "$inc"
				die "$repo: $name: $got bytes where the Hub said $size; run $prog again"
			fi
			check "$name" "$inc" "$etag"
			mv -f -- "$inc" "$blob" || die "cannot rename $inc"
		fi
		[ "$haveflock" = 1 ] && exec 9>&-
	fi
	link "$name" "$etag"
}

for f in "${files[@]}"; do
	fetch "$f"
done

# refs/REV last: it names the commit once its files are all in place (a
# revision that is a commit gets none).
if [ "$rev" != "$commit" ]; then
	ref=$base/refs/$rev
	if [ ! -f "$ref" ] || [ "$(cat -- "$ref")" != "$commit" ]; then
		mkdir -p -- "${ref%/*}" && printf '%s' "$commit" >"$ref.$$.tmp" &&
			mv -f -- "$ref.$$.tmp" "$ref" || die "cannot write $ref"
	fi
fi
# the Cache Directory Tagging Standard, as huggingface_hub tags the cache
if [ ! -e "$hub/CACHEDIR.TAG" ]; then
	printf 'Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by llm-fetch (pipelm).\n# For information about cache directory tags, see:\n#\thttps://bford.info/cachedir/\n' \
	    >"$hub/CACHEDIR.TAG" 2>/dev/null
fi
printf '%s\n' "$snap"
