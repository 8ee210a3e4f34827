"""Build hooks of the mmds wheel: the Go binary goes in as package data
(mmds/bin/mmds, executable), and the wheel is tagged for this platform
(py3-none-<platform>): the Python code is pure, the binary is not.

The binary is $MMDS_WHEEL_BINARY, or ../bin/mmds (make build); make wheel
builds it first. The metadata is in pyproject.toml.
"""
import os
import stat

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))


def binary_source():
    path = os.environ.get("MMDS_WHEEL_BINARY") or os.path.join(HERE, "..", "bin", "mmds")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise SystemExit(f"mmds wheel: no executable mmds binary at {path}: run make wheel "
                         "(it builds bin/mmds first), or set MMDS_WHEEL_BINARY")
    return path


class BuildPyWithBinary(build_py):
    """build_py, then the binary into mmds/bin/, mode 0755 (setuptools copies
    package data without its mode)."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "mmds", "bin", "mmds")
        self.mkpath(os.path.dirname(target))
        self.copy_file(binary_source(), target, preserve_mode=False)
        os.chmod(target, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, "mmds", "bin", "mmds")]


class BinaryDistribution(Distribution):
    """A distribution with native code (the binary): built into a platform
    build folder and installed into platlib."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel for this platform (it carries a native binary) that any
    Python 3 can install: py3-none-<platform>."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildPyWithBinary, "bdist_wheel": PlatformWheel})
