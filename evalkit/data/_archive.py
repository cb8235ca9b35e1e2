"""The files of one MovieLens release, in a directory or a zip archive, read with bounds.

Zip members are streamed in chunks and never decompressed past a cap, so a small hostile
archive (a "zip bomb") cannot take more memory than the cap allows:

* no member may exceed :data:`MAX_MEMBER_BYTES` uncompressed (4 GiB; the largest MovieLens file
  read, ml-32m's ``ratings.csv``, is about 0.9 GB);
* a member larger than :data:`RATIO_FREE_BYTES` (16 MiB) may not expand to more than
  :data:`MAX_MEMBER_RATIO` (100) times its compressed size (MovieLens text compresses about 3 to
  6 times; deflate can reach about 1000 times).

Both the size the archive declares and the bytes actually produced are checked. The constants
are module attributes, so tests (or a user with a larger file) can patch them. A damaged
archive (bad CRC, truncated data, not a zip) raises :class:`CorruptArchiveError`, a
``ValueError`` naming the archive, so the caller can tell it apart from a malformed file.
"""

from __future__ import annotations

import codecs
import io
import lzma
import zipfile
import zlib
from pathlib import Path, PurePosixPath

__all__ = [
    "MAX_MEMBER_BYTES",
    "MAX_MEMBER_RATIO",
    "RATIO_FREE_BYTES",
    "CorruptArchiveError",
    "Source",
    "member_limit",
    "open_bytes",
    "os_error",
]

#: Largest uncompressed size of one archive member, in bytes.
MAX_MEMBER_BYTES: int = 4 * 2**30
#: Largest ratio of uncompressed to compressed size, for members above ``RATIO_FREE_BYTES``.
MAX_MEMBER_RATIO: int = 100
#: Members up to this uncompressed size are not held to ``MAX_MEMBER_RATIO``.
RATIO_FREE_BYTES: int = 16 * 2**20

_CHUNK = 1 << 20
_FUNC = "load_movielens"
# What zipfile and the decompressors raise on damaged archives.
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    NotImplementedError,
    RuntimeError,  # encrypted members
)


class CorruptArchiveError(ValueError):
    """A zip archive that cannot be read: not a zip, truncated, bad CRC, unsupported method."""


def os_error(exc: OSError, message: str) -> OSError:
    """The same kind of OS error (``PermissionError``, ...) with ``message``, keeping errno."""
    new = type(exc)(message)
    new.errno = exc.errno
    return new


def member_limit(compressed: int) -> int:
    """The largest uncompressed size allowed for a member of ``compressed`` bytes."""
    by_ratio = max(RATIO_FREE_BYTES, MAX_MEMBER_RATIO * max(compressed, 1))
    return min(MAX_MEMBER_BYTES, by_ratio)


class _MemoryReader(io.RawIOBase):
    """A read-only file over a bytes-like object, from ``start``, without copying it."""

    def __init__(self, data: bytes | bytearray, start: int = 0) -> None:
        self._view = memoryview(data)[start:]
        self._pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        n = min(len(buffer), len(self._view) - self._pos)
        buffer[:n] = self._view[self._pos : self._pos + n]
        self._pos += n
        return n


def open_bytes(data: bytes | bytearray, start: int = 0) -> io.BufferedReader:
    """A binary file reading ``data[start:]`` (no copy, unlike ``io.BytesIO`` of a bytearray)."""
    return io.BufferedReader(_MemoryReader(data, start), buffer_size=_CHUNK)


def _without_bom(data: bytes | bytearray) -> bytes | bytearray:
    if data[:3] != codecs.BOM_UTF8:
        return data
    if isinstance(data, bytearray):
        del data[:3]  # in place: CPython moves the start of a bytearray, not its contents
        return data
    return data[3:]


class Source:
    """Files of one release, in a directory or a zip archive, addressed by relative path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.is_zip = path.is_file()
        if self.is_zip:
            with self._archive() as archive:
                names = archive.namelist()
            self.members = [
                n
                for n in names
                if not n.endswith("/")
                and not n.startswith("__MACOSX/")
                and not PurePosixPath(n).name.startswith("._")
            ]
        else:
            self.members = [
                p.relative_to(path).as_posix()
                for pattern in ("*", "*/*")
                for p in sorted(path.glob(pattern))
                if p.is_file()
            ]

    def _archive(self) -> zipfile.ZipFile:
        try:
            return zipfile.ZipFile(self.path)
        except _ZIP_ERRORS as exc:
            raise CorruptArchiveError(
                f"{_FUNC}: '{self.path}' is not a readable zip archive ({exc})."
            ) from None
        except OSError as exc:
            raise os_error(exc, f"{_FUNC}: cannot read '{self.path}': {exc.strerror}.") from None

    def find(self, filename: str) -> str | None:
        """The shallowest member named ``filename``; ambiguity at that depth is an error."""
        hits = [m for m in self.members if PurePosixPath(m).name == filename]
        if not hits:
            return None
        depth = min(m.count("/") for m in hits)
        shallowest = sorted(m for m in hits if m.count("/") == depth)
        if len(shallowest) > 1:
            raise ValueError(
                f"{_FUNC}: '{self.path}' holds several releases ({', '.join(shallowest)}); "
                "pass the folder of the one to load."
            )
        return shallowest[0]

    def read_bytes(self, member: str) -> bytes | bytearray:
        """The member's bytes, without a leading UTF-8 byte order mark."""
        if not self.is_zip:
            try:
                return _without_bom((self.path / member).read_bytes())
            except OSError as exc:
                raise os_error(
                    exc, f"{_FUNC}: cannot read '{self.label(member)}': {exc.strerror}."
                ) from None
        with self._archive() as archive:
            try:
                return _without_bom(self._read_member(archive, member))
            except _ZIP_ERRORS as exc:
                raise CorruptArchiveError(
                    f"{_FUNC}: '{self.label(member)}' cannot be read: the zip archive "
                    f"'{self.path}' is damaged ({exc})."
                ) from None

    def _read_member(self, archive: zipfile.ZipFile, member: str) -> bytearray:
        info = archive.getinfo(member)
        limit = member_limit(info.compress_size)
        if info.file_size > limit:
            raise ValueError(self._too_large(member, info, f"declares {info.file_size} bytes"))
        data = bytearray()
        with archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                if len(data) + len(chunk) > limit:
                    raise ValueError(self._too_large(member, info, f"expands past {limit} bytes"))
                data += chunk
        return data

    def _too_large(self, member: str, info: zipfile.ZipInfo, what: str) -> str:
        return (
            f"{_FUNC}: '{self.label(member)}' {what} from {info.compress_size} compressed; "
            f"members are read up to {member_limit(info.compress_size)} bytes "
            f"(MAX_MEMBER_BYTES={MAX_MEMBER_BYTES}, MAX_MEMBER_RATIO={MAX_MEMBER_RATIO} above "
            f"RATIO_FREE_BYTES={RATIO_FREE_BYTES}, in evalkit.data._archive), so this archive is "
            "refused as a likely zip bomb."
        )

    def label(self, member: str) -> str:
        """How a member is named in messages: a path, or ``archive.zip:member``."""
        return f"{self.path}:{member}" if self.is_zip else str(self.path / member)
