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
' "$prog" 2>/dev/null || die "<stdout>: write error"
	exit 0
}

# printable STR [MAX]: STR made safe for a terminal, the one sanitizer
# every message goes through (die, warn, the progress bar), so that no
# string from the server reaches the terminal raw: printable ASCII and
# well-formed UTF-8 kept; a control character (C0, DEL, and the C1 range
# U+0080-U+009F, whose U+009B is a CSI), a bidirectional control (U+061C,
# U+200E, U+200F, U+202A-U+202E, U+2066-U+2069: text shown in another
# order than it is), and every byte of malformed UTF-8 (overlong forms,
# surrogates, stray bytes) become "?"; cut at MAX characters (default
# 4096) with "...".
# shellcheck disable=SC2016
printable_awk='
BEGIN { RS = "^$"; for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
{
	s = $0
	n = length(s)
	out = ""
	i = 1
	for (m = 0; i <= n && m < max; m++) {
		b = ord[substr(s, i, 1)]
		k = 1
		ok = b >= 32 && b < 127
		if (b >= 194 && b <= 244) {
			k = b < 224 ? 2 : b < 240 ? 3 : 4
			cp = b % (k == 2 ? 32 : k == 3 ? 16 : 8)
			wf = i + k - 1 <= n
			for (j = 1; wf && j < k; j++) {
				c = ord[substr(s, i + j, 1)]
				if (c < 128 || c > 191) wf = 0
				else cp = cp * 64 + c - 128
			}
			if (wf && (k == 3 && cp < 2048 || k == 4 && (cp < 65536 || cp > 1114111) ||
			    cp >= 55296 && cp < 57344))
				wf = 0
			if (!wf) k = 1
			else ok = !(cp < 160 || cp == 1564 || cp == 8206 || cp == 8207 ||
			    cp >= 8234 && cp <= 8238 || cp >= 8294 && cp <= 8297)
		}
		out = out (ok ? substr(s, i, k) : "?")
		i += k
	}
	printf "%s%s", out, i <= n ? "..." : ""
}'
printable() {
	printf '%s' "$1" | awk -v max="${2:-4096}" "$printable_awk"
}

die() {
	printf '%s: %s\n' "$prog" "$(printable "$*")" >&2
	exit 1
}

warn() {
	printf '%s: %s\n' "$prog" "$(printable "$*")" >&2
}

# ---- options ----
# options before or after the repo id, as GNU getopt permutes them
# (`llm-fetch ORG/NAME --include '*Q4_K_M.gguf'`); "--" ends them
includes=()
rev=main
operands=()
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
		die "<stdout>: write error"; exit 0 ;;
	--) shift; operands+=("$@"); break ;;
	-?*) warn "unrecognized option '$1'"; usage 2 ;;
	*) operands+=("$1"); shift ;;
	esac
done
[ ${#operands[@]} -eq 1 ] || usage 2
repo=${operands[0]}

# ORG/NAME as the Hub has them (huggingface_hub validate_repo_id): each
# part letters, digits, "_", "-" and ".", beginning and ending with a
# letter, a digit or "_", the name at most 96; no ".." and no "--" (the
# cache folder models--ORG--NAME would hold two ids: a--b/c and a/b--c);
# not ending in ".git".
idpart='[A-Za-z0-9_]([A-Za-z0-9._-]*[A-Za-z0-9_])?'
name=${repo#*/}
if ! [[ $repo =~ ^$idpart/$idpart$ ]] || [ ${#name} -gt 96 ] ||
    [[ $repo == *..* || $repo == *--* || $repo == *.git ]]; then
	warn "$repo: not a repository id (ORG/NAME)"
	usage 2
fi
# A branch, a tag or a commit: no "..", no empty or hidden path segment.
if ! [[ $rev =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$ ]] ||
    [[ $rev == *..* || $rev == *.lock || $rev == *.tmp ]]; then
	warn "$rev: not a revision"
	usage 2
fi

# ---- environment (huggingface_hub constants.py; the cache as lib/disk/mdir.c finds it) ----
istrue() {
	case ${1^^} in 1|ON|YES|TRUE) return 0 ;; *) return 1 ;; esac
}
endpoint=${HF_ENDPOINT:-https://huggingface.co}
endpoint=${endpoint%%+(/)}
[[ $endpoint =~ ^https?://[A-Za-z0-9.:_-]+(/[A-Za-z0-9._~/-]*)?$ ]] ||
	die "HF_ENDPOINT: not an http or https URL: $endpoint"
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

# Time bounds.  A transfer that stays under $floor bytes/s for
# HF_HUB_ETAG_TIMEOUT seconds (the requests to the Hub) or
# HF_HUB_DOWNLOAD_TIMEOUT seconds (a file's content), huggingface_hub's
# time-outs (10 s each), is stopped: a server that answers nothing, or
# trickles, is given up.  A request to the Hub takes at most 300 s, a
# file at most what is left of it takes at $floor bytes/s, plus a minute
# and HF_HUB_DOWNLOAD_TIMEOUT: the floor holds on the whole too, against
# a server that alternates bursts and pauses.
floor=1000
seconds() {
	local v=${!1:-10} s
	[[ $v =~ ^0*([0-9]{1,6})(\.[0-9]*)?$ ]] ||
		die "$1: not a number of seconds: $v"
	s=$((10#${BASH_REMATCH[1]}))
	[[ ${BASH_REMATCH[2]} == .*[1-9]* ]] && s=$((s + 1))
	[ "$s" -ge 1 ] && [ "$s" -le 86400 ] ||
		die "$1: not a number of seconds from 1 to 86400: $v"
	printf '%d' "$s"
}
etagt=$(seconds HF_HUB_ETAG_TIMEOUT) || exit 1
dlt=$(seconds HF_HUB_DOWNLOAD_TIMEOUT) || exit 1
# The repository info is read whole: at most 64 MiB of it.
infomax=67108864

# The temporary folder (response headers, the file list) is removed
# however llm-fetch ends: the traps are set before it exists, and a
# signal that comes while cleaning up (timeout(1) sends its TERM to the
# process and again to its process group) is ignored rather than cutting
# the cleanup short.  The token is never in it.
tmp='' cpid='' hpid=''
cleanup() {
	trap '' INT TERM HUP
	if [ -n "$cpid$hpid" ]; then
		# shellcheck disable=SC2086 # either may be empty
		kill $cpid $hpid 2>/dev/null
		# shellcheck disable=SC2086
		wait $cpid $hpid 2>/dev/null
		[ -n "$cpid" ] && [ "${tty:-0}" = 1 ] && printf '\n' >&2
		cpid='' hpid=''
	fi
	[ -z "$tmp" ] || rm -rf -- "$tmp"
	tmp=
}
onsignal() {
	trap '' INT TERM HUP
	cleanup
	exit "$1"
}
trap cleanup EXIT
trap 'onsignal 130' INT
trap 'onsignal 143' TERM
trap 'onsignal 129' HUP
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llm-fetch.XXXXXX") || die "cannot make a temporary folder"

# The token: HF_TOKEN, else the file `hf auth login` writes.  It goes to
# curl on its standard input (-H @-), never in a file or on a command
# line, and only to $origin.
token=${HF_TOKEN:-}
if [ -z "$token" ]; then
	tokfile=${HF_TOKEN_PATH:-$hfhome/token}
	[ -r "$tokfile" ] && token=$(head -c 4096 "$tokfile" | tr -d ' \t\r\n')
fi
if [ -n "$token" ]; then
	[[ $token =~ ^[A-Za-z0-9._~+/=-]+$ ]] || die "HF_TOKEN: not a token (characters a token does not have)"
fi

copt=(-sS -g --proto "=http,https" --proto-redir "=http,https" --connect-timeout 30
	-A "llm-fetch/$version (pipelm)" -H 'Accept-Encoding: identity')

# xstart OUT MAX AUTH CURL-ARG...: start a transfer, curl in the
# background so that a signal is answered at once (xwait waits for it).
# The body is appended to OUT through head(1), which takes MAX bytes and
# then stops reading: a server that sends more than it said, or never
# stops, gets no further than that; with OUT empty there is no body
# (HEAD).  With AUTH 1 the token goes with it, on curl's standard input.
# The response headers go to $tmp/h, curl's messages to $tmp/err.
xstart() {
	local out=$1 max=$2 auth=$3 fd
	shift 3
	: >"$tmp/h"
	if [ -n "$out" ]; then
		exec {fd}> >(exec head -c "$max" >>"$out")
		hpid=$!
	else
		exec {fd}>/dev/null
	fi
	if [ "$auth" = 1 ] && [ -n "$token" ]; then
		printf 'Authorization: Bearer %s\n' "$token" |
			curl "${copt[@]}" -H @- "$@" -D "$tmp/h" -o - 1>&"$fd" 2>"$tmp/err" &
	else
		curl "${copt[@]}" "$@" -D "$tmp/h" -o - 1>&"$fd" 2>"$tmp/err" </dev/null &
	fi
	cpid=$!
	exec {fd}>&-
}

# xwait: wait for the transfer xstart started; sets rc (curl's status),
# hrc (head's) and code (the last response's HTTP status, 000 for none).
xwait() {
	wait "$cpid"
	rc=$?
	cpid=
	hrc=0
	if [ -n "$hpid" ]; then
		wait "$hpid"
		hrc=$?
		hpid=
	fi
	code=$(awk '/^HTTP\// { c = $2 } END { print c == "" ? "000" : c }' "$tmp/h")
}

# request METHOD URL OUT: a request to the Hub, with the token; relative
# redirects (a renamed repository) followed, an absolute one not (it is
# where an LFS file's content is).  The last response's headers in $tmp/h,
# its body in OUT (no more than $infomax bytes and one); sets url (the
# last one asked), code and rc.
request() {
	local loc hops=0
	url=$2
	for ((;;)); do
		if [ "$1" = HEAD ]; then
			xstart "" "" 1 -I --max-time 300 --speed-limit "$floor" \
			    --speed-time "$etagt" --url "$url"
		else
			: >"$3" || die "cannot write $3"
			xstart "$3" $((infomax + 1)) 1 --max-time 300 \
			    --speed-limit "$floor" --speed-time "$etagt" --url "$url"
		fi
		xwait
		[ "$hrc" -eq 0 ] || die "cannot write $3"
		[ "$rc" -eq 0 ] && [[ $code == 3* ]] || return 0
		loc=$(hdr Location)
		[[ $loc == /* && $loc != //* ]] || return 0
		[[ $loc != *[[:cntrl:][:space:]]* ]] ||
			die "$repo: a redirect to $loc"
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
	head -n 1 -- "$tmp/err"
}

# What a failed response means (huggingface_hub utils/_http.py
# hf_raise_for_status: X-Error-Code, X-Error-Message).  $1: what was asked.
httperr() {
	local xcode xmsg
	xcode=$(hdr X-Error-Code)
	xmsg=$(hdr X-Error-Message)
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
[ "$(stat -c %s -- "$tmp/info")" -le "$infomax" ] ||
	die "$repo: the Hub's answer for revision $rev is larger than 64 MiB"
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
# ("bad<TAB>name" for a name holding a control character, shown with "?",
# "long<TAB>name" for one longer than 4096 bytes, cut there), ignoring
# everything else; exits 1 on malformed JSON.
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
# add(t): t appended to the string being read (sv), up to 4096 bytes; a
# longer string is only marked (long), so that reading stays linear
function add(t) {
	if (long) return
	if (length(sv) + length(t) > 4096) long = 1
	else sv = sv t
}
function str(   c, e, cp, lo, start, run) {
	pos++
	sv = ""
	bad = long = 0
	for (;;) {
		if (pos > n) fail("unterminated string")
		c = substr(s, pos, 1)
		if (c == "\"") { pos++; return sv }
		if (c == "\\") {
			e = substr(s, pos + 1, 1)
			pos += 2
			if (e == "\"" || e == "\\" || e == "/") add(e)
			else if (e == "b" || e == "f" || e == "n" || e == "r" || e == "t") { add("?"); bad = 1 }
			else if (e == "u") {
				cp = hex4()
				if (cp >= 55296 && cp < 56320) {
					if (substr(s, pos, 2) != "\\u") fail("lone surrogate")
					pos += 2
					lo = hex4()
					if (lo < 56320 || lo >= 57344) fail("lone surrogate")
					cp = 65536 + (cp - 55296) * 1024 + (lo - 56320)
				} else if (cp >= 56320 && cp < 57344) fail("lone surrogate")
				if (cp < 32 || cp == 127) { add("?"); bad = 1 }
				else add(utf8(cp))
			} else fail("bad escape")
			continue
		}
		start = pos
		while (pos <= n && (c = substr(s, pos, 1)) != "\"" && c != "\\") pos++
		run = substr(s, start, pos - start)
		if (run ~ ctl) { gsub(ctl, "?", run); bad = 1 }
		add(run)
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
		else if (ctx == "rfilename") print (long ? "long" : bad ? "bad" : "file") "\t" v
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
# the answer read in one piece (RS never matches), not a line at a time
BEGIN {
	ctl = "[" sprintf("%c", 1) "-" sprintf("%c", 31) sprintf("%c", 127) "]"
	RS = "^$"
}
{ s = $0 }
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
longs=()
declare -A seen=()
while IFS= read -r line; do
	case $line in
	sha$'\t'*) [ -n "$commit" ] || commit=${line#*$'\t'} ;;
	file$'\t'*)
		f=${line#*$'\t'}
		[ -n "${seen[x$f]:-}" ] || names+=("$f")
		seen[x$f]=1 ;;
	bad$'\t'*) bads+=("${line#*$'\t'}") ;;
	long$'\t'*) longs+=("${line#*$'\t'}") ;;
	esac
done <"$tmp/list"
iscommit "$commit" || die "$repo: the Hub's answer for revision $rev has no commit (sha: $commit)"
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
	return 0
}

files=()
for f in "${longs[@]}"; do
	wanted "$f" && die "$repo: refusing the file name '${f:0:64}...': it is longer than 1024 bytes"
done
for f in "${bads[@]}"; do
	wanted "$f" && die "$repo: refusing the file name '$f': it holds a control character"
done
for f in "${names[@]}"; do
	wanted "$f" || continue
	[ ${#f} -le 1024 ] ||
		die "$repo: refusing the file name '${f:0:64}...': it is longer than 1024 bytes"
	safename "$f" || die "$repo: refusing the file name '$f': it does not stay inside the snapshot"
	files+=("$f")
done
[ ${#files[@]} -gt 0 ] ||
	die "$repo: none of the files pipelm reads at revision $rev (--include names others)"
have_weights=0
for f in "${names[@]}"; do
	[[ $f == model.safetensors || $f == model.safetensors.index.json ]] && have_weights=1
done
# a GGUF file is a model too (-m ORG/NAME:QUANT)
for f in "${files[@]}"; do
	[[ $f == *.[gG][gG][uU][fF] ]] && have_weights=1
done
[ "$have_weights" = 1 ] ||
	warn "$repo: no model.safetensors or model.safetensors.index.json at revision $rev (pipelm reads safetensors, or a GGUF file that --include names: --include '*Q4_K_M.gguf')"

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
	printf '\r%-20s %3d%% [%-20s] %s / %s  %s/s  %s\033[K' \
	    "$(printable "$1" 17)" "$pct" "$bar" "$(human "$cur")" "$(human "$3")" \
	    "$(human "$rate")" "$left" >&2
}

# getblob NAME URL AUTH SIZE INC: GET into INC, resuming what it holds;
# no more than SIZE bytes (and one, to know the server sent more), and
# within the time bounds.
getblob() {
	local have r t0 mt retried=0
	while :; do
		have=$(stat -c %s -- "$5") || die "cannot read $5"
		r=()
		[ "$have" -gt 0 ] && r=(-C "$have")
		mt=$((60 + dlt + ($4 - have) / floor))
		t0=${EPOCHREALTIME/./}
		# -L for the CDN's own redirects: curl sends a -H Authorization
		# to the host and port it was given only (curl 7.83 and later).
		xstart "$5" $(($4 - have + 1)) "$3" -f -L --max-redirs 5 \
		    --speed-limit "$floor" --speed-time "$dlt" --max-time "$mt" \
		    "${r[@]}" --url "$2"
		if [ "$tty" = 1 ]; then
			while kill -0 "$cpid" 2>/dev/null; do
				meter "$1" "$5" "$4" "$have" "$t0"
				sleep 0.25
			done
		fi
		xwait
		[ "$hrc" -eq 0 ] || die "cannot write $5"
		if [ "$(stat -c %s -- "$5")" -gt "$4" ]; then
			rm -f -- "$5"
			die "$repo: $1: the server sent more than the $4 bytes the Hub announced: the download was removed"
		fi
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
	28)
		if grep -q 'too slow' "$tmp/err"; then
			die "$repo: $1: the download stayed under $floor bytes/s for $dlt s (HF_HUB_DOWNLOAD_TIMEOUT), at $(stat -c %s -- "$5") of $4 bytes; run $prog again to resume"
		fi
		grep -q '^curl: (28) Operation timed out' "$tmp/err" &&
			die "$repo: $1: the download took more than $mt s (what was left of it at $floor bytes/s, plus a minute and HF_HUB_DOWNLOAD_TIMEOUT), at $(stat -c %s -- "$5") of $4 bytes; run $prog again to resume"
		die "$repo: $1: $(curlerr)" ;;
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
		die "$repo: $name: the Hub answered for commit $(hdr X-Repo-Commit), not $commit"
	etag=$(hdr X-Linked-Etag)
	[ -n "$etag" ] || etag=$(hdr ETag)
	etag=${etag#W/}
	etag=${etag//\"/}
	[[ $etag =~ ^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$ ]] ||
		die "$repo: $name: not an ETag the Hub sends: $etag"
	size=$(hdr X-Linked-Size)
	[ -n "$size" ] || [[ $code == 3* ]] || size=$(hdr Content-Length)
	[[ $size =~ ^[0-9]{1,15}$ ]] || die "$repo: $name: no size in the Hub's answer"
	dl=$url
	if [[ $code == 3* ]]; then
		dl=$(hdr Location)
		[[ $dl =~ ^https?://[^/?#[:space:]]+ && $dl != *[[:cntrl:][:space:]]* ]] ||
			die "$repo: $name: a redirect to $dl"
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
