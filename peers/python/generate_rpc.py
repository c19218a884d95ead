"""Generates the RPC stubs of PROTOCOL.md section 10 from protocol/idl/ into .build/rpcgen.

Run with the project's virtualenv after `pip install -r requirements.lock`:

    .venv/bin/python peers/python/generate_rpc.py

Each framework's own compiler does the work (no generated code is committed): grpcio-tools'
protoc, Debian's `thrift --gen py`, Debian's `slice2py` and omniidl's Python backend (from the
omniorb-py package). A compiler that is missing is reported and skipped, so the frameworks
that can be generated still are; the peer then reports the missing one as unsupported.
The Ice runtime is Debian's python3-zeroc-ice: this script also links its modules (only those)
into .build/ice-runtime and points the virtualenv at them with a .pth file.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

PEER = Path(__file__).resolve().parent
IDL = PEER.parents[1] / "protocol" / "idl"
BUILD = PEER / ".build"
OUT = BUILD / "rpcgen"
ICE_RUNTIME = BUILD / "ice-runtime"
DEBIAN_SITE = Path("/usr/lib/python3/dist-packages")
# The top-level names python3-zeroc-ice installs; nothing else of dist-packages is exposed.
ICE_MODULES = ("Ice", "IcePy.cpython-311-x86_64-linux-gnu.so", "Glacier2", "IceBox",
               "IceGrid", "IceMX", "IcePatch2", "IceStorm")
ICE_PTH = "ipclab-zeroc-ice.pth"


def grpc():
    from grpc_tools import protoc

    include = Path(protoc.__file__).resolve().parent / "_proto"
    args = ["grpc_tools.protoc", f"-I{IDL}", f"-I{include}", f"--python_out={OUT}",
            f"--grpc_python_out={OUT}", str(IDL / "ipclab_grpc.proto")]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed")


def thrift():
    run(["thrift", "--gen", "py", "-out", str(OUT), str(IDL / "ipclab_thrift.thrift")])


def ice():
    run(["slice2py", f"--output-dir={OUT}", str(IDL / "ipclab_ice.ice")])


def corba():
    omniidl = shutil.which("omniidl", path=str(Path(sys.executable).parent))
    if omniidl is None:
        raise RuntimeError("omniidl of the omniorb-py package is not in the virtualenv")
    # Its own interpreter line may name another Python; run it with ours so that it finds
    # the omniidl_be.python backend installed with omniorb-py.
    run([sys.executable, omniidl, "-bpython", f"-C{OUT}", str(IDL / "ipclab_corba.idl")])


def run(command):
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {completed.stderr.strip()}")


def link_ice_runtime():
    """Makes Debian's Ice modules, and only those, importable from this interpreter."""
    if not (DEBIAN_SITE / "IcePy.cpython-311-x86_64-linux-gnu.so").exists():
        raise RuntimeError("python3-zeroc-ice is not installed (apt-get install python3-zeroc-ice)")
    if ICE_RUNTIME.exists():
        shutil.rmtree(ICE_RUNTIME)
    ICE_RUNTIME.mkdir(parents=True)
    for name in ICE_MODULES:
        if (DEBIAN_SITE / name).exists():
            (ICE_RUNTIME / name).symlink_to(DEBIAN_SITE / name)
    site = Path(sysconfig.get_paths()["purelib"])
    (site / ICE_PTH).write_text(f"{ICE_RUNTIME}\n")


STEPS = (("grpc", grpc), ("thrift", thrift), ("ice runtime", link_ice_runtime), ("ice", ice),
         ("corba", corba))


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    failed = []
    for name, step in STEPS:
        try:
            step()
        except Exception as err:  # noqa: BLE001 - generate what can be generated
            failed.append(name)
            print(f"generate_rpc: {name}: {err}", file=sys.stderr)
    print(f"generate_rpc: stubs in {OUT}" + (f"; failed: {', '.join(failed)}" if failed else ""),
          file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
