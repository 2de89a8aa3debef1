"""How c4pi replaces a file it owns (a book, the hole looks): written whole beside it,
then renamed over it, so a reader never sees half a file."""

from __future__ import annotations

import errno
import os
from pathlib import Path


def write_whole(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` by renaming a finished file over it, and return the
    path written. A symbolic link is followed (the link stays; its file is replaced);
    a path that exists and is no regular file (a folder, a device) is refused with
    :class:`OSError` before anything is written."""
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    if target.exists() and not target.is_file():
        raise OSError(errno.EINVAL, "not a regular file", str(target))
    partial = target.with_name(target.name + ".part")
    try:
        partial.write_bytes(data)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target
