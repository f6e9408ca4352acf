"""Files around a job's boxes, handled so that nothing a sandboxed process left behind can steer
the parent: no path in a box is followed, opened for writing, or read after user code ran there.

- `fresh_box`: each phase (compile, tests, benchmark) gets a new, empty directory the parent made.
- `copy_out`: the one file the parent takes out of a box, the compiler's output: opened with
  O_NOFOLLOW | O_NONBLOCK relative to the box's directory fd, only a regular file, its size
  bounded before reading.
- `sealed_memfd`: what a child loads (the solution, the emulator's runtime) reaches it as a
  read-only memfd, never as a file in a box a later phase could find replaced.
- `remove_tree`: deletes a box whatever its contents (symlinks are removed, not followed;
  directories made unreadable or unwritable are opened up first).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
from pathlib import Path

_COPY_CHUNK = 1 << 20


class BoxFileError(Exception):
    """The expected file in a box is missing, not a regular file, or too large."""


def fresh_box(job_dir: Path, name: str) -> Path:
    box = job_dir / name
    remove_tree(box)
    box.mkdir(parents=True)
    return box


def _open_in(directory: Path, name: str, max_bytes: int) -> int:
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        raise BoxFileError(f"{name}: {exc.strerror}") from None
    finally:
        os.close(dir_fd)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        os.close(fd)
        raise BoxFileError(f"{name} is not a regular file of at most {max_bytes} bytes")
    return fd


def copy_out(directory: Path, name: str, target: Path, max_bytes: int) -> None:
    """Copy directory/name (in a box) to target (a place of the parent's), safely."""
    fd = _open_in(directory, name, max_bytes)
    try:
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            copied = 0
            while chunk := os.read(fd, _COPY_CHUNK):
                copied += len(chunk)
                if copied > max_bytes:  # it grew after the check: whoever writes it is still running
                    raise BoxFileError(f"{name} grew past {max_bytes} bytes while it was read")
                os.write(out, chunk)
        except BaseException:
            os.close(out)
            os.unlink(tmp)
            raise
        os.close(out)
        os.replace(tmp, target)
    finally:
        os.close(fd)


def sealed_memfd(path: Path, name: str) -> int:
    """A memfd holding a copy of `path` (a file of the parent's), sealed against any change."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        with path.open("rb") as source:
            while chunk := source.read(_COPY_CHUNK):
                os.write(fd, chunk)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW
                    | fcntl.F_SEAL_SEAL)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_up(path: str) -> None:
    """Give the owner rwx on a directory (not through a symlink) so it can be listed and emptied."""
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.chmod(f"/proc/self/fd/{fd}", 0o700)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_tree(path: Path) -> None:
    """Delete `path` and everything in it; symlinks inside are unlinked, never followed."""
    if not os.path.lexists(path):
        return
    if os.path.islink(path) or not os.path.isdir(path):
        os.unlink(path)
        return
    # Run after the sandbox is dead: nothing changes the tree meanwhile. Each round opens up the
    # directories the last one could not enter (as root, chmod 000 stops nothing; as a user it does).
    stuck: list[str] = []
    for _ in range(64):
        stuck.clear()
        shutil.rmtree(path, onerror=lambda _fn, failed, _exc: stuck.append(failed))
        if not os.path.lexists(path):
            return
        for entry in {path.as_posix(), *stuck}:
            _open_up(entry)
            _open_up(os.path.dirname(entry))
