"""How c4pi replaces a file it owns (a book, the hole looks): written whole beside it,
then renamed over it, so a reader never sees half a file."""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path


def write_whole(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` by renaming a finished, synced file over it (its
    missing folders made), and return the path written. A symbolic link is followed
    (the link stays; its file is replaced, keeping its permissions); a path that exists
    and is no regular file (a folder, a device) is refused with :class:`OSError` before
    anything is written.
    Two writers at once never mix their files: the last rename wins."""
    target = replaceable(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    existed = target.exists()
    mode = stat.S_IMODE(target.stat().st_mode) if existed else 0o666
    partial = target.with_name(f"{target.name}.{secrets.token_hex(4)}.part")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)  # umask applies
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        if existed:
            os.chmod(partial, mode)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    _sync_folder(target.parent)
    return target


def replaceable(path: str | os.PathLike[str]) -> Path:
    """The file :func:`write_whole` would replace for ``path`` (a link followed), or
    :class:`OSError` when it may not: a loop of links, a folder or a device there, or
    a folder it cannot create a file in. Asked before long work whose result it holds."""
    path = Path(path)
    if path.is_symlink():
        try:
            os.stat(path)
        except FileNotFoundError:
            pass  # a link to a file not made yet: it is made
        except OSError as error:
            raise OSError(error.errno, error.strerror, str(path)) from None
        path = Path(os.path.realpath(path))
    if path.exists() and not path.is_file():
        raise OSError(errno.EINVAL, f"{path} is not a regular file", str(path))
    folder = next((parent for parent in path.parents if parent.exists()), Path("."))
    if not folder.is_dir():
        raise OSError(errno.ENOTDIR, f"{folder} is not a folder", str(folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            raise OSError(errno.EROFS, f"{folder} is on a read-only file system", str(folder))
        raise OSError(errno.EACCES, f"cannot create files in {folder}", str(folder))
    return path


def _sync_folder(folder: Path) -> None:
    """The rename on disk too (a Pi may lose power any time); best effort."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)
