"""A PEP 517 build backend for the pipelm package, on the standard library
alone, so that `pip install ./python` works offline on a machine with
python3-pip and nothing more (Debian's setuptools 66 cannot build a wheel
without the wheel package).

The wheel holds pipelm/__init__.py, libpipelm.so (built with make in the
pipelm source tree this folder sits in, or the file $PIPELM_LIB names)
and the built-in model (share/pipelm/stories260K).  A platform wheel:
the library is this machine's."""

import base64
import hashlib
import os
import subprocess
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
NAME, VERSION = "pipelm", "0.1.0"
DIST = "%s-%s" % (NAME, VERSION)


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-" + plat


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: HuggingFace language models from Python over "
            "libpipelm.so (ctypes)\nRequires-Python: >=3.8\n"
            % (NAME, VERSION))


def _library():
    lib = os.environ.get("PIPELM_LIB")
    if lib:
        return lib
    if not os.path.exists(os.path.join(TOP, "Makefile")):
        raise RuntimeError("pipelm: not in a pipelm source tree: set "
                           "PIPELM_LIB to a libpipelm.so")
    subprocess.run(["make", "-C", TOP, "build/rel/libpipelm.so"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(TOP, "build", "rel", "libpipelm.so")


def _files():
    """(name in the wheel, path on disk)"""
    yield "pipelm/__init__.py", os.path.join(HERE, "pipelm", "__init__.py")
    yield "pipelm/libpipelm.so", _library()
    model = os.path.join(TOP, "share", "pipelm", "stories260K")
    if os.path.isdir(model):
        for f in sorted(os.listdir(model)):
            yield "pipelm/share/stories260K/" + f, os.path.join(model, f)


def _record(name, data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (name, h.decode(), len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST + ".dist-info")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(_metadata())
    return DIST + ".dist-info"


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    whl = "%s-%s.whl" % (DIST, _tag())
    info = DIST + ".dist-info/"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, whl), "w",
                         zipfile.ZIP_DEFLATED) as z:
        def add(name, data, mode=0o644):
            zi = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
            record.append(_record(name, data))
        for name, path in _files():
            with open(path, "rb") as f:
                add(name, f.read(), 0o755 if name.endswith(".so") else 0o644)
        add(info + "METADATA", _metadata().encode())
        add(info + "WHEEL", ("Wheel-Version: 1.0\nGenerator: pipelm "
                             "build_backend\nRoot-Is-Purelib: false\n"
                             "Tag: %s\n" % _tag()).encode())
        record.append(info + "RECORD,,")
        z.writestr(info + "RECORD", "\n".join(record) + "\n")
    return whl
