"""Builds libofdmsim with the repository's CMake (scripts/setup.sh: the same
packages, flags and CUDA choice as the program) and ships it inside the
package, which loads it with ctypes.

Environment: OFDMSIM_SOURCE_DIR the repository (default: this folder's
parent); OFDMSIM_PYTHON_BUILD the CMake build folder (default
<repository>/build-python); OFDMSIM_CUDA, OFDMSIM_CMAKE_ARGS as setup.sh
takes them; OFDMSIM_LIBRARY a libofdmsim.so built already (no build).
"""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

here = Path(__file__).resolve().parent


def build_library():
    given = os.environ.get("OFDMSIM_LIBRARY")
    if given:
        return Path(given)
    repo = Path(os.environ.get("OFDMSIM_SOURCE_DIR", here.parent)).resolve()
    if not (repo / "api" / "ofdmsim.h").exists():
        raise SystemExit(f"ofdmsim: {repo} is not the ofdmsim repository (no api/ofdmsim.h); "
                         "install with `pip install ./python` from the repository, or set OFDMSIM_SOURCE_DIR")
    build = Path(os.environ.get("OFDMSIM_PYTHON_BUILD", repo / "build-python"))
    env = dict(os.environ, OFDMSIM_BUILD=str(build), OFDMSIM_TARGETS="ofdmsim_shared")
    subprocess.run(["bash", str(repo / "scripts" / "setup.sh")], check=True, env=env)
    return build / "libofdmsim.so"


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = build_library().resolve()  # the versioned file itself, not its link
        dest = Path(self.build_lib) / "ofdmsim" / "libofdmsim.so"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib, dest)


class BinaryDistribution(Distribution):
    """A wheel for this platform: the package holds a compiled library."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
