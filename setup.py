"""Builds the Python package's native module (vkinfer._vkinfer) with CMake and packs it
with python/vkinfer/, libvkinfer beside it and the shipped upscaler (docs/PYTHON.md).

Where the README's build (build/) was configured from this tree for this interpreter, the
module is built there (nothing is compiled twice); otherwise in a build of its own under
setuptools' build_temp with the tests, benchmarks and examples off. ccache is used when
installed. VKINFER_CMAKE_ARGS adds configure arguments; VKINFER_BUILD_JOBS sets the jobs.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def _run(cmd, **kw):
    print("vkinfer setup:", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def _cache(build: Path) -> dict:
    try:
        text = (build / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return {}
    return dict(re.findall(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", text, re.M))


class CMakeBuild(build_ext):
    def _readme_build(self):
        """The README's build/, when it builds this tree's module for this interpreter."""
        build = ROOT / "build"
        cache = _cache(build)
        if Path(cache.get("CMAKE_HOME_DIRECTORY", "/nonexistent")).resolve() != ROOT:
            return None
        if cache.get("VKINFER_BUILD_PYTHON", "ON") in ("OFF", "FALSE", "0") or cache.get("VKINFER_SANITIZE"):
            return None
        python = cache.get("Python3_EXECUTABLE", "")
        if not python:
            return None
        probe = "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"
        try:
            theirs = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None
        return build if theirs == EXT_SUFFIX else None

    def _configure_own(self) -> Path:
        build = Path(self.build_temp).resolve() / "cmake"
        args = ["-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", f"-DPython3_EXECUTABLE={sys.executable}",
                "-DVKINFER_BUILD_TESTS=OFF", "-DVKINFER_BUILD_BENCH=OFF", "-DVKINFER_BUILD_EXAMPLES=OFF",
                "-DVKINFER_BUILD_TOOLS=ON", "-DVKINFER_BUILD_PYTHON=ON"]
        if shutil.which("ninja") and not (build / "CMakeCache.txt").exists():
            args += ["-G", "Ninja"]
        if shutil.which("ccache"):
            args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        args += os.environ.get("VKINFER_CMAKE_ARGS", "").split()
        _run(["cmake", *args])
        return build

    def build_extension(self, ext):
        build = self._readme_build() or self._configure_own()
        jobs = os.environ.get("VKINFER_BUILD_JOBS") or str(os.cpu_count() or 2)
        _run(["cmake", "--build", build, "--target", "vkinfer_python", "-j", jobs])

        built = build / "python" / "vkinfer" / ("_vkinfer" + EXT_SUFFIX)
        if not built.is_file():
            raise RuntimeError(f"the build made no {built.name} in {built.parent} (another Python version?)")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)
        # The library the module links (its RPATH starts with $ORIGIN) and the shipped upscaler.
        for lib in build.glob("libvkinfer.so.*"):
            if re.fullmatch(r"libvkinfer\.so\.\d+", lib.name):
                shutil.copyfile(lib.resolve(), target.parent / lib.name)
        data = target.parent / "data" / "upscaler_x2"
        data.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "data" / "upscaler_x2" / "model.onnx", data / "model.onnx")


setup(ext_modules=[Extension("vkinfer._vkinfer", sources=[])], cmdclass={"build_ext": CMakeBuild})
