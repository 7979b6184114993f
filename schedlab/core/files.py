"""Files in and out: inputs read bounded, outputs checked before the work that fills them, then written whole or not at all.

:func:`read_input` reads a file someone else wrote: a regular file only (a device such as
``/dev/zero`` or a pipe is refused without blocking), gzip undone, and at most ``max_bytes`` of
content either way (a small gzip can hold gigabytes); every refusal is an :class:`InputFileError`
naming the path given, one line.

:func:`check_writable` probes a path before minutes of work go into it; :func:`write_atomically`
writes beside the target and renames onto it (:func:`os.replace`), so a write that fails midway
(a full disk) leaves the old file as it was. The JSON export and the tuners' ``.npz`` both go
through it.

Examples
--------
>>> import json, pathlib, tempfile
>>> target = pathlib.Path(tempfile.mkdtemp()) / "doc.json"
>>> write_atomically(target, lambda f: f.write(b'{"a": 1}')) == target, json.loads(target.read_text())
(True, {'a': 1})
>>> check_writable("/nonexistent/doc.json")
Traceback (most recent call last):
...
ValueError: cannot write /nonexistent/doc.json: its folder /nonexistent does not exist
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path

__all__ = ["MAX_INPUT_BYTES", "InputFileError", "read_input", "check_writable", "write_atomically"]

#: Most bytes :func:`read_input` returns by default (after gzip): 512 MiB, about 1.5 million
#: entries of a Kernel Tuner cache.
MAX_INPUT_BYTES = 512 * 2**20
_GZIP_MAGIC = b"\x1f\x8b"


class InputFileError(ValueError):
    """An input file that cannot be read as what it should be: the message names the path and why, in one line."""


def _gunzip(raw: bytes, max_bytes: int, path) -> bytearray:
    """Every gzip member of ``raw``, decompressed, refusing more than ``max_bytes`` of output."""
    out, data = bytearray(), raw
    while data:
        if not data.startswith(_GZIP_MAGIC):
            raise InputFileError(f"{path}: broken gzip data (trailing bytes after the compressed data)")
        member = zlib.decompressobj(wbits=31)
        try:
            while data and not member.eof:
                out += member.decompress(data, max_bytes + 1 - len(out))
                if len(out) > max_bytes:
                    raise InputFileError(
                        f"{path}: decompresses to more than {max_bytes} bytes (the cap on what is read)"
                    )
                data = member.unconsumed_tail
        except zlib.error as err:
            raise InputFileError(f"{path}: broken gzip data ({err})") from None
        if not member.eof:
            raise InputFileError(f"{path}: broken gzip data (truncated)")
        data = member.unused_data
    return out


def read_input(path, max_bytes: int = MAX_INPUT_BYTES) -> bytes | bytearray:
    """The content of the regular file ``path``, gzip undone, at most ``max_bytes``; :class:`InputFileError` otherwise.

    Examples
    --------
    >>> read_input("/dev/zero")
    Traceback (most recent call last):
    ...
    schedlab.core.files.InputFileError: cannot read /dev/zero: not a regular file
    """
    try:  # O_NONBLOCK: opening a pipe with no writer must not wait for one
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise InputFileError(f"cannot read {path}: {err.strerror or err}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputFileError(f"cannot read {path}: not a regular file")
    with open(fd, "rb", closefd=True) as f:
        try:
            raw = f.read(max_bytes + 1)
        except OSError as err:
            raise InputFileError(f"cannot read {path}: {err.strerror or err}") from None
    if raw.startswith(_GZIP_MAGIC):
        return _gunzip(raw, max_bytes, path)
    if len(raw) > max_bytes:
        raise InputFileError(f"{path}: larger than {max_bytes} bytes (the cap on what is read)")
    return raw


def _is_stream(path: Path) -> bool:
    """Whether ``path`` is an existing device or pipe (``/dev/null``, ``/dev/stdout``): written in place."""
    return path.exists() and not path.is_file() and not path.is_dir()


def check_writable(path) -> Path:
    """``path`` as a :class:`~pathlib.Path` once a file can be written there; a ValueError naming it otherwise.

    A new file is probed by creating (and removing) a temporary file in its folder, which is where
    :func:`write_atomically` writes first.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"cannot write {path}: it is a folder")
    if _is_stream(path):
        if not os.access(path, os.W_OK):
            raise ValueError(f"cannot write {path}: permission denied")
        return path
    if not path.parent.is_dir():
        raise ValueError(f"cannot write {path}: its folder {path.parent} does not exist")
    try:
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as err:
        raise ValueError(f"cannot write {path}: {err.strerror or err}") from None
    return path


def _new_file_mode() -> int:
    """The permissions a plain ``open(path, "w")`` would give a new file (0o666 less the umask)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path, write: Callable) -> Path:
    """Call ``write(f)`` on a binary file beside ``path``, then rename it onto ``path``; returns the path.

    Parameters
    ----------
    path : str or Path
        The target (checked by :func:`check_writable`). A device or pipe is written in place; a
        symbolic link is written through (its target replaced, the link kept).
    write : callable
        Writes the content to the open binary file it is given.

    Raises
    ------
    OSError
        If the writing fails (its ``filename`` is ``path``); ``path`` then holds what it held before
        and the temporary file is removed.
    """
    path = check_writable(path)
    if path.is_symlink():  # write through the link to its target: the link stays a link
        path = check_writable(path.resolve())
    if _is_stream(path):
        with open(path, "wb") as f:
            write(f)
        return path
    mode = path.stat().st_mode & 0o777 if path.exists() else _new_file_mode()
    tmp = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".part", delete=False)
    try:
        with tmp:
            write(tmp)
        os.chmod(tmp.name, mode)
        os.replace(tmp.name, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp.name)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    return path
