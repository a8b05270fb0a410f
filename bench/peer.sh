#!/bin/sh
# bench/peer.sh: build llama.cpp's llama-bench for `make bench` to run beside
# pipelm, and llama-perplexity and llama-quantize for the side-by-side
# checks of llm-score and of the 4-bit formats (what `make peer` runs).  Needs npm (to fetch the source), git,
# cmake and a C++ compiler; the network is used here only, never by the
# benchmark itself.
#
# The source is the llama.cpp release that the npm package node-llama-cpp
# carries as a git bundle (pinned below), built for this CPU (GGML_NATIVE,
# as llama.cpp's own instructions build it) into $PEER_DIR (build/peer):
# $PEER_DIR/llama-bench is what bench/run.sh looks for.
set -eu

me=peer.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
dir=${PEER_DIR:-$top/build/peer}
pkg=node-llama-cpp@3.22.1	# carries llama.cpp v0.5.0 (llama/llama.cpp.info.json)
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

say() { printf '%s: %s\n' "$me" "$*" >&2; }
fail() { say "$*"; exit 1; }

for c in npm git cmake tar; do
	command -v $c >/dev/null || fail "needs $c"
done
targets="llama-bench llama-perplexity llama-quantize"
built=1
for t in $targets; do [ -x "$dir/$t" ] || built=; done
if [ -n "$built" ]; then
	say "$dir: $targets are there (remove them to build again)"
	exit 0
fi
mkdir -p "$dir"
cd "$dir"
if [ ! -d llama.cpp ]; then
	say "fetching $pkg (npm pack)"
	rm -rf pack && mkdir pack
	(cd pack && npm pack --silent "$pkg" >/dev/null) || fail "npm pack $pkg failed"
	tar -xzf pack/*.tgz -C pack package/llama/gitRelease.bundle \
	    package/llama/llama.cpp.info.json || fail "unexpected package layout"
	rm -rf llama.cpp.tmp	# an interrupted run's
	git -c advice.detachedHead=false clone -q pack/package/llama/gitRelease.bundle llama.cpp.tmp ||
		fail "cannot clone the llama.cpp bundle"
	cp pack/package/llama/llama.cpp.info.json llama.cpp.tmp/
	rm -rf pack
	mv llama.cpp.tmp llama.cpp
fi
say "building $targets (cmake, $jobs jobs; several minutes)"
cmake -S llama.cpp -B llama.cpp/build -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF \
    >cmake.log 2>&1 || fail "cmake configure failed: see $dir/cmake.log"
# shellcheck disable=SC2086
cmake --build llama.cpp/build -j "$jobs" --target $targets \
    >>cmake.log 2>&1 || fail "cmake build failed: see $dir/cmake.log"
for t in $targets; do cp "llama.cpp/build/bin/$t" .; done
say "built $targets in $dir ($(sed -n 's/.*"tag": "\(.*\)".*/llama.cpp \1/p' llama.cpp/llama.cpp.info.json))"
