#!/bin/sh
# bench/peer.sh: build llama.cpp's llama-bench for `make bench` to run beside
# pipelm, llama-batched-bench beside llm-gen -P, llama-tokenize beside the
# GGUF tokenizer, and llama-perplexity and llama-quantize for the side-by-side
# checks of llm-score and of the 4-bit formats (what `make peer` runs).  Needs npm (to fetch the source), git,
# cmake and a C++ compiler; the network is used here only, never by the
# benchmark itself.
#
# The source is the llama.cpp release that the npm package node-llama-cpp
# carries as a git bundle (pinned below), built for this CPU (GGML_NATIVE,
# as llama.cpp's own instructions build it) into $PEER_DIR (build/peer):
# $PEER_DIR/llama-bench is what bench/run.sh looks for.
#
# PEER_ISA=avx2 builds the same source for AVX2 machines instead
# (GGML_NATIVE off; AVX, AVX2, FMA, F16C and BMI2 on; AVX-512 and AVX-VNNI
# off) into build/peer-avx2: the fair peer of PIPELM_KERNEL=avx2 on an
# AVX-512 machine (BENCH_KERNEL=avx2 in bench/run.sh).  It builds from the
# source tree the native build fetched ($PEER_SRC, build/peer/llama.cpp;
# fetched there first if absent), out of tree into $PEER_DIR/build.
# PEER_ISA=avxvnni is the same with AVX-VNNI on, into build/peer-avxvnni:
# the peer of PIPELM_KERNEL=avx2 on a CPU that has AVX-VNNI (Alder Lake
# and later, Zen 5), where pipelm's AVX2 table takes its AVX-VNNI entries.
set -eu

me=peer.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
isa=${PEER_ISA:-native}
case $isa in
native) dir=${PEER_DIR:-$top/build/peer} ;;
avx2) dir=${PEER_DIR:-$top/build/peer-avx2} vnni=OFF ;;
avxvnni) dir=${PEER_DIR:-$top/build/peer-avxvnni} vnni=ON ;;
*) printf '%s: PEER_ISA: %s: not native, avx2 or avxvnni\n' peer.sh "$isa" >&2; exit 1 ;;
esac
pkg=node-llama-cpp@3.22.1	# carries llama.cpp v0.5.0 (llama/llama.cpp.info.json)
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

say() { printf '%s: %s\n' "$me" "$*" >&2; }
fail() { say "$*"; exit 1; }

for c in npm git cmake tar; do
	command -v $c >/dev/null || fail "needs $c"
done
targets="llama-bench llama-perplexity llama-quantize llama-batched-bench llama-tokenize"
built=1
for t in $targets; do [ -x "$dir/$t" ] || built=; done
if [ -n "$built" ]; then
	say "$dir: $targets are there (remove them to build again)"
	exit 0
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# the source tree: fetched into the native build's directory, shared by both
if [ "$isa" = native ]; then
	src=$dir/llama.cpp
else
	src=${PEER_SRC:-$top/build/peer/llama.cpp}
fi
fetchdir=$(dirname "$src")
mkdir -p "$fetchdir"
cd "$fetchdir"
if [ ! -d "$src" ]; then
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
	mv llama.cpp.tmp "$src"
fi
cd "$dir"
if [ "$isa" = native ]; then
	bld=llama.cpp/build
	flags=-DGGML_NATIVE=ON
else
	bld=build
	flags="-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON
	    -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX_VNNI=$vnni
	    -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF
	    -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF
	    -DGGML_AMX_BF16=OFF"
	# bench/run.sh reads the version from here, as from the native tree
	cp "$src/llama.cpp.info.json" . 2>/dev/null || :
fi
say "building $targets for $isa (cmake, $jobs jobs; several minutes)"
# shellcheck disable=SC2086
cmake -S "$src" -B "$bld" -DCMAKE_BUILD_TYPE=Release $flags \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF \
    >cmake.log 2>&1 || fail "cmake configure failed: see $dir/cmake.log"
# shellcheck disable=SC2086
cmake --build "$bld" -j "$jobs" --target $targets \
    >>cmake.log 2>&1 || fail "cmake build failed: see $dir/cmake.log"
for t in $targets; do cp "$bld/bin/$t" .; done
say "built $targets for $isa in $dir ($(sed -n 's/.*"tag": "\(.*\)".*/llama.cpp \1/p' "$src/llama.cpp.info.json"))"
