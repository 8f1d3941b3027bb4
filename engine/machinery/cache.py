"""The prepared cache: heavy derived arrays written once per machine, memory-mapped by every process.

A server process computes seconds of arrays on a first visit (SmolLM2's float32 weights out of
its quantized file, the corpus's token ids, n-gram counts) and holds them in its own memory, so
four processes would hold four copies. Here each such array is written once into a folder
(`PLAYGROUND_CACHE`, default `~/.cache/transformer-playground`) as a plain `.npy` file and read
back with `numpy.load(mmap_mode="r")`: every process on the machine maps the same file, and the
kernel keeps one physical copy in its page cache. `python -m engine.prepare` fills the folder
ahead of time (the Dockerfile runs it); without it, the first process that needs an entry
builds and writes it, exactly as it used to compute it.

An entry lives in `<root>/<name>/<key>/`: one `.npy` per array and `manifest.json` (each
file's dtype, shape, byte size and CRC-32, plus small JSON metadata). The key is a SHA-256
of the entry's parameters, the content of its input files and the source of the code that
computes it, so new data or new code never reads an old entry. Writing goes to a private
temporary folder renamed into place (atomic), under an exclusive lock per entry name, so two
processes preparing at once leave one valid entry. A missing, truncated or corrupt file (size
or CRC-32) is logged and the entry rebuilt. No pickle anywhere: `allow_pickle=False`.
"""
from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import logging
import os
import shutil
import tempfile
import threading
import zlib
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator, Sequence

import numpy as np

from engine.machinery import file_lock

ENVIRONMENT_VARIABLE = "PLAYGROUND_CACHE"
OFF = ("0", "off", "none")       # PLAYGROUND_CACHE=off: compute in memory, write nothing
FORMAT = 1                       # bump when the folder layout itself changes
MANIFEST = "manifest.json"
log = logging.getLogger(__name__)

Arrays = dict[str, np.ndarray]
Built = tuple[Arrays, dict]      # (arrays, JSON-able metadata)


def root() -> Path | None:
    """The cache folder, or None when caching is switched off or the folder cannot be created."""
    setting = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if setting.lower() in OFF:
        return None
    folder = Path(setting) if setting else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) \
        / "transformer-playground"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        log.warning("prepared cache off: cannot create %s (%s)", folder, error)
        return None
    return folder   # a read-only folder (an image's baked cache) is read; what is missing is built in memory


# --- keys: parameters, input content, code --------------------------------------------------------

_digests: dict[tuple[str, int, int], str] = {}
_digest_lock = threading.Lock()


def file_digest(path: Path | str) -> str:
    """SHA-256 of a file's content, computed once per process per (path, size, modification time)."""
    path = Path(path)
    stat = path.stat()
    mark = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _digest_lock:
        if mark not in _digests:
            digest = hashlib.sha256()
            with open(path, "rb") as file:
                for chunk in iter(lambda: file.read(1 << 20), b""):
                    digest.update(chunk)
            _digests[mark] = digest.hexdigest()
        return _digests[mark]


def code_digest(modules: Sequence[ModuleType]) -> str:
    """SHA-256 of the source of the modules that compute an entry (and of this one)."""
    digest = hashlib.sha256()
    for module in sorted({*modules, inspect.getmodule(code_digest)}, key=lambda m: m.__name__):
        digest.update(module.__name__.encode())
        digest.update(file_digest(inspect.getsourcefile(module)).encode())
    return digest.hexdigest()


def entry_key(params: dict, inputs: Sequence[Path], code: Sequence[ModuleType]) -> str:
    """The entry's address: its parameters, its inputs' content and its code, hashed together."""
    described = {"format": FORMAT, "params": params, "code": code_digest(code),
                 "inputs": sorted(file_digest(path) for path in inputs)}
    return hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:24]


# --- reading and checking ---------------------------------------------------------------------------

class Damaged(Exception):
    """An entry on disk that cannot be trusted (missing file, wrong size, wrong checksum)."""


def crc32(array: np.ndarray) -> int:
    """CRC-32 of an array's bytes (zlib: about 7 GB/s, so checking every load costs little)."""
    return zlib.crc32(memoryview(np.ascontiguousarray(array)).cast("B"))


def _read(folder: Path) -> Built:
    """The entry's arrays, memory-mapped read-only, after checking each against the manifest."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        arrays = {}
        for name, about in manifest["arrays"].items():
            path = folder / about["file"]
            if path.stat().st_size != about["bytes"]:
                raise Damaged(f"{path.name} has {path.stat().st_size} bytes, the manifest says {about['bytes']}")
            array = np.load(path, mmap_mode="r", allow_pickle=False) if about["shape"] and \
                np.prod(about["shape"]) else np.load(path, allow_pickle=False)
            if str(array.dtype) != about["dtype"] or list(array.shape) != about["shape"]:
                raise Damaged(f"{path.name} holds {array.dtype}{list(array.shape)}, "
                              f"the manifest says {about['dtype']}{about['shape']}")
            if crc32(array) != about["crc32"]:
                raise Damaged(f"{path.name} fails its checksum")
            arrays[name] = array
        return arrays, manifest["meta"]
    except Damaged:
        raise
    except (OSError, ValueError, KeyError, TypeError) as error:   # truncated header, bad JSON, missing file
        raise Damaged(f"{type(error).__name__}: {error}") from None


def _write(folder: Path, arrays: Arrays, meta: dict) -> None:
    """Write an entry into a new private folder next to `folder`, then rename it into place."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        about = {}
        for index, (name, array) in enumerate(arrays.items()):
            array = np.ascontiguousarray(array)
            if array.dtype == object:
                raise TypeError(f"The cache stores numbers, not Python objects ({name}).")
            file = f"{index:03d}.npy"
            np.save(temporary / file, array, allow_pickle=False)
            about[name] = {"file": file, "dtype": str(array.dtype), "shape": list(array.shape),
                           "bytes": (temporary / file).stat().st_size, "crc32": crc32(array)}
        with open(temporary / MANIFEST, "w") as handle:
            json.dump({"format": FORMAT, "arrays": about, "meta": meta}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o755)
        os.rename(temporary, folder)     # atomic; fails if another process got there first
    except OSError:
        if not folder.is_dir():
            raise
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _discard(folder: Path) -> None:
    """Move a damaged entry aside (atomic), then delete it; readers that mapped it keep their pages."""
    aside = folder.with_name(f".{folder.name}.damaged.{os.getpid()}")
    with contextlib.suppress(OSError):
        os.rename(folder, aside)
    shutil.rmtree(aside, ignore_errors=True)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock shared by every process on the machine (released by the kernel if one dies)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        file_lock.lock(handle.fileno())
        try:
            yield
        finally:
            file_lock.unlock(handle.fileno())


# --- the one call -----------------------------------------------------------------------------------

def cached(name: str, build: Callable[[], Built], *, params: dict | None = None,
           inputs: Sequence[Path] = (), code: Sequence[ModuleType] = ()) -> Built:
    """(arrays, meta) of an entry: memory-mapped from the cache when a valid copy is there, else
    built by `build()`, written, and read back mapped. With no usable cache folder, `build()`'s own result."""
    folder_root = root()
    if folder_root is None:
        return build()
    folder = folder_root / name / entry_key(params or {}, inputs, code)
    if (folder / MANIFEST).is_file():
        try:
            return _read(folder)
        except Damaged as why:
            log.warning("prepared cache: %s/%s is damaged (%s); rebuilding it", name, folder.name, why)
    try:
        with _locked(folder_root / name / ".lock"):
            if (folder / MANIFEST).is_file():         # another process wrote it while we waited
                try:
                    return _read(folder)
                except Damaged as why:
                    log.warning("prepared cache: %s/%s is damaged (%s); rebuilding it", name, folder.name, why)
            if folder.exists():
                _discard(folder)
            arrays, meta = build()
            try:
                _write(folder, arrays, meta)
                return _read(folder)
            except (OSError, TypeError, Damaged) as error:   # a full disk, say: the page still gets its arrays
                log.warning("prepared cache: could not write %s (%s); using it from memory", name, error)
                return arrays, meta
    except OSError as error:                           # a read-only folder: no lock, no writing
        log.warning("prepared cache: cannot write in %s (%s); %s is built in memory", folder_root, error, name)
        return build()


def entries(folder_root: Path | None = None) -> list[tuple[str, str, int]]:
    """(name, key, bytes) of every entry in the cache folder."""
    folder_root = folder_root or root()
    if folder_root is None or not folder_root.is_dir():
        return []
    found = []
    for manifest in sorted(folder_root.glob(f"*/*/{MANIFEST}")):
        size = sum(file.stat().st_size for file in manifest.parent.iterdir())
        found.append((manifest.parent.parent.name, manifest.parent.name, size))
    return found
