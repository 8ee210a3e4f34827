"""python -m mmds ARGS: runs the mmds command line, as the binary itself."""
from __future__ import annotations

import os
import sys
from typing import List, Optional

from ._binary import binary_path
from ._errors import MmdsError


def main(argv: Optional[List[str]] = None) -> int:
    """Replaces this process with mmds ARGS (the exit status, signals and
    terminal are mmds's own); returns only when mmds cannot be started."""
    args = sys.argv[1:] if argv is None else argv
    try:
        path = binary_path()
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(path, ["mmds", *args])
    except (MmdsError, OSError) as e:
        print(e if isinstance(e, MmdsError) else f"mmds: cannot run the mmds binary: {e}", file=sys.stderr)
        return 2
    return 2  # not reached: execv does not return


if __name__ == "__main__":
    sys.exit(main())
