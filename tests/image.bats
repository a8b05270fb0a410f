#!/usr/bin/env bats
# make image: the OCI image archive (tools/mkimage) and the static
# programs in it (make STATIC=1).  Container engines cannot start
# containers on the machines these run on: the archive is checked as
# docker load reads it, and its root is run under chroot(8).
load helpers

setup() {
	IMAGE=$TOOLS/../pipelm-image.tar
	STATIC=$TOOLS/../static/bin
	[ -r "$IMAGE" ] || skip "no $IMAGE: make image (make test makes it)"
	cd "$BATS_TEST_TMPDIR"
	mkdir img
	tar -xf "$IMAGE" -C img
}

# The root of the image's one layer, into root/.
layer_root() {
	mkdir root
	tar -xzf "img/blobs/sha256/$(sed -n 's/.*"Layers":\["blobs\/sha256\/\([0-9a-f]*\)".*/\1/p' img/manifest.json)" -C root
}

@test "image: index, manifest and config parse; every blob's digest and size match" {
	need_cmd python3
	run -0 python3 - <<'EOF'
import gzip, hashlib, json, os, platform, sys
d = "img"
def blob(desc):
    alg, hexd = desc["digest"].split(":")
    assert alg == "sha256", desc
    b = open(os.path.join(d, "blobs", alg, hexd), "rb").read()
    assert hashlib.sha256(b).hexdigest() == hexd, "digest of " + hexd
    assert len(b) == desc["size"], "size of %s: %d, not %d" % (hexd, len(b), desc["size"])
    return b
assert json.load(open(d + "/oci-layout")) == {"imageLayoutVersion": "1.0.0"}
index = json.load(open(d + "/index.json"))
assert index["schemaVersion"] == 2
assert index["mediaType"] == "application/vnd.oci.image.index.v1+json"
[m] = index["manifests"]
assert m["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
assert m["annotations"]["io.containerd.image.name"] == "docker.io/library/pipelm:latest"
man = json.loads(blob(m))
assert man["schemaVersion"] == 2 and man["mediaType"] == m["mediaType"]
assert man["config"]["mediaType"] == "application/vnd.oci.image.config.v1+json"
cfg = json.loads(blob(man["config"]))
[layer] = man["layers"]
assert layer["mediaType"] == "application/vnd.oci.image.layer.v1.tar+gzip"
tar = gzip.decompress(blob(layer))
# the config names the layer by the digest of its uncompressed tar
assert cfg["rootfs"] == {"type": "layers",
    "diff_ids": ["sha256:" + hashlib.sha256(tar).hexdigest()]}
assert cfg["os"] == "linux"
assert cfg["architecture"] == {"x86_64": "amd64", "aarch64": "arm64"}.get(
    platform.machine(), platform.machine())
assert cfg["config"]["Entrypoint"] == ["/usr/local/bin/llm-text", "-i"]
assert "PATH=/usr/local/bin" in cfg["config"]["Env"]
# docker's manifest.json: the same config and layer
[dm] = json.load(open(d + "/manifest.json"))
assert dm["Config"] == "blobs/sha256/" + man["config"]["digest"][7:]
assert dm["Layers"] == ["blobs/sha256/" + layer["digest"][7:]]
assert dm["RepoTags"] == ["pipelm:latest"]
# no blob that nothing names
named = {m["digest"], man["config"]["digest"], layer["digest"]}
assert {"sha256:" + f for f in os.listdir(d + "/blobs/sha256")} == named
print("ok", len(tar), "bytes of layer")
EOF
	echo "$output"
	[[ $output == "ok "* ]]
	# a blob changed by one byte is caught
	f=$(ls img/blobs/sha256 | head -1)
	printf x >>"img/blobs/sha256/$f"
	run -1 python3 -c '
import hashlib, json, os
for f in os.listdir("img/blobs/sha256"):
    b = open("img/blobs/sha256/" + f, "rb").read()
    assert hashlib.sha256(b).hexdigest() == f, f
'
}

@test "image: the root holds every program, static, the model and the man pages" {
	need_cmd readelf
	layer_root
	for p in tok-encode tok-decode llm-logits llm-sample llm-gen llm-score llm-text st-inspect llm-quant; do
		[ -x root/usr/local/bin/$p ] || { echo "no $p"; false; }
		[ -r root/usr/local/share/man/man1/$p.1 ] || { echo "no $p.1"; false; }
		# no program interpreter: nothing to load from a root without libc
		run -0 readelf -l root/usr/local/bin/$p
		[[ $output != *"program interpreter"* ]]
	done
	[ -r root/usr/local/share/man/man5/pipelm-formats.5 ]
	for f in config.json model.safetensors tokenizer.json; do
		cmp root/usr/local/share/pipelm/stories260K/$f \
		    "$BATS_TEST_DIRNAME/../share/pipelm/stories260K/$f"
	done
	[ -d root/tmp ]
	[ ! -e root/usr/local/bin/llm-fetch ]	# bash and curl are not there
	# a few megabytes
	[ "$(wc -c <"$IMAGE")" -lt 20000000 ]
}

@test "image: the root, extracted, runs the programs under chroot" {
	[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
	need_cmd chroot
	layer_root
	ch() { env -i PATH=/usr/local/bin "$(command -v chroot)" root "$@"; }
	want=$(llm-text -n 16 --temp 0 Once upon a time)
	run -0 ch /usr/local/bin/llm-text -n 16 --temp 0 Once upon a time
	[ "$output" = "$want" ]
	# the entry point, llm-text -i, through a pipe
	run -0 ch /usr/local/bin/llm-text -i -n 16 --temp 0 <<<'Once upon a time'
	[ "$output" = "$(llm-text --no-echo -n 16 --temp 0 Once upon a time)" ]
	c="env -i $(command -v chroot) root /usr/local/bin"
	run -0 sh -c "echo 'Once upon a time' | $c/tok-encode | $c/llm-gen -n 8 --temp 0"
	[ "$output" = "$(echo 'Once upon a time' | tok-encode | llm-gen -n 8 --temp 0)" ]
	run -0 ch /usr/local/bin/st-inspect /usr/local/share/pipelm/stories260K/model.safetensors
	[ "$output" = "$(st-inspect "$BATS_TEST_DIRNAME/../share/pipelm/stories260K/model.safetensors")" ]
}

@test "image: static programs give the dynamic ones' outputs on the golden models" {
	need_shared
	[ -x "$STATIC/llm-logits" ] || skip "no $STATIC: make STATIC=1"
	local g m n=0
	for g in "$SHARED"/golden/logits/*.ids; do
		m=$(basename "$g" .ids)
		"$STATIC/llm-logits" -m "$SHARED/models/$m" --all -f npy -o s.npy <"$g"
		llm-logits -m "$SHARED/models/$m" --all -f npy -o d.npy <"$g"
		cmp s.npy d.npy
		n=$((n + 1))
	done
	[ "$n" -ge 10 ]
	for m in stories260K tiny-gqa-bf16; do
		[ "$("$STATIC/llm-text" -m "$SHARED/models/$m" -n 24 --seed 5 Once upon a time)" = \
		    "$(llm-text -m "$SHARED/models/$m" -n 24 --seed 5 Once upon a time)" ]
	done
	run -0 "$STATIC/tok-encode" -m "$SHARED/models/smollm2-tokenizer" <"$BATS_TEST_DIRNAME/../README.md"
	[ "$output" = "$(tok-encode -m "$SHARED/models/smollm2-tokenizer" <"$BATS_TEST_DIRNAME/../README.md")" ]
}

@test "image: the same root gives the same archive, byte for byte" {
	[ "$(id -u)" -eq 0 ] || skip "the root's owners and modes need root to extract"
	layer_root
	"$BATS_TEST_DIRNAME/../tools/mkimage" root again.tar
	cmp again.tar "$IMAGE"
	run -2 "$BATS_TEST_DIRNAME/../tools/mkimage" root
	run -1 --separate-stderr "$BATS_TEST_DIRNAME/../tools/mkimage" nowhere x.tar
	[ "$stderr" = "mkimage: nowhere: no usr/local/bin/llm-text" ]
	[ ! -e x.tar ]
}
