"""Where the mmds binary is: $MMDS_BINARY, else the one the wheel carries."""
from __future__ import annotations

import os
from importlib import resources

from ._errors import MmdsError

ENV = "MMDS_BINARY"


def binary_path() -> str:
    """The mmds executable this package runs: the file $MMDS_BINARY names
    (for development: a bin/mmds built from a checkout), else mmds/bin/mmds
    inside the installed package."""
    env = os.environ.get(ENV)
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise MmdsError(f"mmds: ${ENV} = {env!r}: not an executable file (unset it to use the binary the wheel carries)")
        return env
    path = str(resources.files("mmds") / "bin" / "mmds")  # a file: the package is installed unzipped
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise MmdsError(f"mmds: no executable mmds binary at {path}: install the package from its wheel "
                        f"(make wheel), or set ${ENV} to a bin/mmds built with make build")
    return path
