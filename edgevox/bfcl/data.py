"""BFCL v4 data: fetch the pinned ``bfcl-eval`` wheel, unpack its data, load cases.

The data (Apache-2.0, UC Berkeley Gorilla team) ships inside the ``bfcl-eval`` wheel under
``bfcl_eval/data/``. The wheel's own dependency list is huge, so we download it with
``pip download --no-deps``, check its sha256 and unpack only the data files into
``$EDGEVOX_HOME/bfcl/<version>/`` (extract to a temp dir, then rename: a reader never
sees a half-written cache). A local wheel or an already unpacked data directory works
offline; the directory's contents are checked against a pinned digest.

Files are JSON lines: one case per line, ``{"id", "question", "function"}``; possible
answers sit in ``possible_answer/`` with the same ids, ``{"id", "ground_truth"}``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgevox.bfcl.schema import name_map, to_json_schema

__all__ = [
    "BFCL_VERSION",
    "CATEGORIES",
    "SCORED_CATEGORIES",
    "WHEEL_SHA256",
    "BfclDataError",
    "Case",
    "data_is_ready",
    "default_data_dir",
    "fetch",
    "load_cases",
    "resolve_category",
    "to_json_schema",
]

BFCL_VERSION = "2026.3.23"
WHEEL_FILENAME = f"bfcl_eval-{BFCL_VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a"
# sha256 over the sorted "relative-path NUL file-sha256 LF" lines of the unpacked data:
# pins a local data directory to the same bytes as the pinned wheel.
DATA_DIGEST = "a11ae81a8e5c0bce16ab271aef8073f085cd8b0138ee59bb2d3e597662f9ef34"

MANIFEST = ".edgevox-bfcl.json"

# Single-turn AST categories we load; value = has possible answers.
CATEGORIES: dict[str, bool] = {
    "simple_python": True,
    "multiple": True,
    "parallel": True,
    "parallel_multiple": True,
    "irrelevance": False,
    "live_simple": True,
    "live_multiple": True,
    "live_parallel": True,
    "live_parallel_multiple": True,
    "live_irrelevance": False,
    "live_relevance": False,
}
SCORED_CATEGORIES = tuple(c for c, scored in CATEGORIES.items() if scored)
_ALIASES = {"simple": "simple_python"}

# What we unpack from the wheel: every top-level BFCL_v4 question file, every possible
# answer file, and the data README (licence and citation). The pattern is also a guard:
# no other path (and so no "..") can be written.
_MEMBER = re.compile(
    r"^bfcl_eval/data/(?P<rel>BFCL_v4_\w+\.json|possible_answer/BFCL_v4_\w+\.json|README\.md)$"
)


class BfclDataError(RuntimeError):
    """The BFCL data could not be fetched, verified, unpacked or read."""


@dataclass(frozen=True)
class Case:
    """One single-turn BFCL case.

    ``question`` is the flattened chat (system/user/assistant messages of the turn);
    ``functions`` are BFCL's function documents as-is; ``possible_answer`` is BFCL's
    ground truth (a list of ``{function_name: {param: [acceptable values]}}``), or None
    for the (ir)relevance categories.
    """

    id: str
    category: str
    question: list[dict[str, Any]]
    functions: list[dict[str, Any]]
    possible_answer: list[dict[str, Any]] | None

    def tools(self, *, sanitize: bool = False) -> list[dict[str, Any]]:
        """The case's functions as OpenAI tool dicts (see :func:`to_json_schema`)."""
        return [to_json_schema(f, sanitize=sanitize) for f in self.functions]

    def name_map(self) -> dict[str, str]:
        """Sanitized function name -> BFCL name, for calls made with sanitized names."""
        return name_map(self.functions)


def edgevox_home() -> Path:
    """The cache root: $EDGEVOX_HOME, else ~/.cache/edgevox."""
    return Path(os.environ.get("EDGEVOX_HOME") or Path.home() / ".cache" / "edgevox").expanduser()


def default_data_dir(version: str = BFCL_VERSION) -> Path:
    """Where :func:`fetch` puts the data and :func:`load_cases` looks for it."""
    return edgevox_home() / "bfcl" / version


def data_is_ready(path: str | os.PathLike[str] | None = None) -> bool:
    """True when ``path`` (default: the cache dir) holds a complete, pinned unpack."""
    target = Path(path) if path is not None else default_data_dir()
    try:
        manifest = json.loads((target / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return manifest.get("version") == BFCL_VERSION and manifest.get("digest") == DATA_DIGEST


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _tree_digest(files: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(f"{rel}\0{files[rel]}\n".encode())
    return h.hexdigest()


def _download_wheel(workdir: Path) -> Path:
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", f"bfcl-eval=={BFCL_VERSION}", "-d", str(workdir),
    ]  # fmt: skip
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BfclDataError(
            f"could not run pip to download bfcl-eval=={BFCL_VERSION} ({exc}); "
            "pass a local wheel or data directory instead"
        ) from exc
    wheel = workdir / WHEEL_FILENAME
    if proc.returncode != 0 or not wheel.is_file():
        lines = (proc.stderr or proc.stdout or "").strip().splitlines()
        reason = lines[-1] if lines else f"pip exited with status {proc.returncode}"
        raise BfclDataError(
            f"could not download bfcl-eval=={BFCL_VERSION}: {reason}; "
            "pass a local wheel or data directory for offline use"
        )
    return wheel


def _unpack_wheel(wheel: Path, into: Path) -> dict[str, str]:
    digest = _sha256_file(wheel)
    if digest != WHEEL_SHA256:
        raise BfclDataError(
            f"{wheel} has sha256 {digest}, expected {WHEEL_SHA256} (bfcl-eval {BFCL_VERSION})"
        )
    files: dict[str, str] = {}
    try:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                m = _MEMBER.match(info.filename)
                if not m or info.is_dir():
                    continue
                rel = m.group("rel")
                target = into / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
                files[rel] = _sha256_file(target)
    except zipfile.BadZipFile as exc:
        raise BfclDataError(f"{wheel} is not a valid wheel: {exc}") from exc
    return files


def _find_data_root(path: Path) -> Path:
    """Accept ``…/bfcl_eval/data``, an unpacked wheel root, or a previous cache dir."""
    for candidate in (path, path / "bfcl_eval" / "data", path / "data"):
        if (candidate / "BFCL_v4_simple_python.json").is_file():
            return candidate
    raise BfclDataError(f"{path} does not contain BFCL data (no BFCL_v4_simple_python.json)")


def _copy_data_dir(src: Path, into: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(src.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(src).as_posix()
        if not _MEMBER.match(f"bfcl_eval/data/{rel}"):
            continue
        target = into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        files[rel] = _sha256_file(target)
    digest = _tree_digest(files)
    if digest != DATA_DIGEST:
        raise BfclDataError(
            f"the data in {src} does not match bfcl-eval {BFCL_VERSION} "
            f"(digest {digest[:12]}…, expected {DATA_DIGEST[:12]}…)"
        )
    return files


def _install(tmp: Path, dest: Path) -> None:
    """Rename a finished temp dir onto ``dest``; a stale, incomplete ``dest`` is removed."""
    if dest.exists():
        if data_is_ready(dest):  # someone else finished first
            shutil.rmtree(tmp, ignore_errors=True)
            return
        stale = Path(tempfile.mkdtemp(prefix=".stale-", dir=dest.parent))
        os.replace(dest, stale / "old")
        shutil.rmtree(stale, ignore_errors=True)
    try:
        os.replace(tmp, dest)
    except OSError:
        if not data_is_ready(dest):  # not a concurrent fetch that won the race
            raise
        shutil.rmtree(tmp, ignore_errors=True)


def fetch(
    dest: str | os.PathLike[str] | None = None,
    wheel: str | os.PathLike[str] | None = None,
    *,
    force: bool = False,
) -> Path:
    """Make the pinned BFCL data available and return its directory.

    ``wheel`` may be a local ``bfcl_eval-<version>.whl`` (sha256-checked) or a data
    directory (digest-checked); without it the wheel is downloaded with pip, no deps.
    Nothing is done when ``dest`` already holds a complete unpack (unless ``force``).
    """
    target = Path(dest).expanduser() if dest is not None else default_data_dir()
    source = Path(wheel).expanduser() if wheel is not None else None
    if source is not None and not source.exists():
        raise BfclDataError(f"{source} does not exist")
    if data_is_ready(target) and not force and source is None:
        return target

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; the cache is ordinary readable data
    try:
        if source is None:
            with tempfile.TemporaryDirectory(prefix="edgevox-bfcl-dl-") as dl:
                files = _unpack_wheel(_download_wheel(Path(dl)), tmp)
            origin = f"pypi:bfcl-eval=={BFCL_VERSION}"
        elif source.is_dir():
            files = _copy_data_dir(_find_data_root(source), tmp)
            origin = str(source)
        else:
            files = _unpack_wheel(source, tmp)
            origin = str(source)
        digest = _tree_digest(files)
        if digest != DATA_DIGEST:
            raise BfclDataError(f"unpacked data digest {digest} does not match the pinned one")
        if data_is_ready(target) and not force:  # verified input, cache already complete
            shutil.rmtree(tmp, ignore_errors=True)
            return target
        manifest = {
            "version": BFCL_VERSION,
            "wheel_sha256": WHEEL_SHA256,
            "digest": digest,
            "source": origin,
            "files": files,
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
        _install(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def resolve_category(category: str) -> str:
    """Canonical category name (``simple`` is accepted for ``simple_python``)."""
    name = _ALIASES.get(category, category)
    if name not in CATEGORIES:
        known = ", ".join(CATEGORIES)
        raise ValueError(f"unknown BFCL category {category!r}; known: {known}")
    return name


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    try:
        with path.open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise BfclDataError(f"{path}:{lineno}: invalid JSON ({exc})") from exc
                if not isinstance(row, dict) or "id" not in row:
                    raise BfclDataError(f"{path}:{lineno}: expected an object with an 'id'")
                rows.append(row)
    except OSError as exc:
        raise BfclDataError(f"cannot read {path}: {exc}") from exc
    return rows


def _flatten_question(raw: Any, where: str) -> list[dict[str, Any]]:
    turns = raw if isinstance(raw, list) else []
    if turns and all(isinstance(t, dict) for t in turns):  # already a flat message list
        turns = [turns]
    messages = [dict(m) for turn in turns if isinstance(turn, list) for m in turn]
    if not messages or not all(isinstance(m.get("content"), str) and "role" in m for m in messages):
        raise BfclDataError(f"{where}: 'question' is not a list of chat messages")
    return messages


def load_cases(
    category: str,
    data_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    *,
    ids: Iterable[str] | None = None,
) -> list[Case]:
    """Load one category's cases in file order.

    ``limit`` keeps the first N (after the ``ids`` filter, which keeps only those ids).
    Raises BfclDataError when the data is missing (run ``edgevox bfcl fetch``).
    """
    name = resolve_category(category)
    root = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    qpath = root / f"BFCL_v4_{name}.json"
    if not qpath.is_file():
        raise BfclDataError(
            f"BFCL data not found at {root} (no {qpath.name}); run `edgevox bfcl fetch` first"
        )
    if limit is not None and limit < 0:
        raise ValueError("limit must be >= 0")
    wanted = set(ids) if ids is not None else None

    answers: dict[str, list[dict[str, Any]]] = {}
    if CATEGORIES[name]:
        apath = root / "possible_answer" / qpath.name
        if not apath.is_file():
            raise BfclDataError(f"possible answers missing: {apath}")
        for row in _read_jsonl(apath):
            gt = row.get("ground_truth")
            if not isinstance(gt, list):
                raise BfclDataError(f"{apath}: {row['id']}: 'ground_truth' is not a list")
            answers[row["id"]] = gt

    cases: list[Case] = []
    if limit == 0:
        return cases
    for row in _read_jsonl(qpath):
        cid = row["id"]
        if wanted is not None and cid not in wanted:
            continue
        functions = row.get("function")
        if not isinstance(functions, list):
            raise BfclDataError(f"{qpath.name}: {cid}: 'function' is not a list")
        answer = None
        if CATEGORIES[name]:
            if cid not in answers:
                raise BfclDataError(f"{qpath.name}: {cid}: no possible answer")
            answer = answers[cid]
        question = _flatten_question(row.get("question"), f"{qpath.name}: {cid}")
        cases.append(Case(cid, name, question, functions, answer))
        if limit is not None and len(cases) >= limit:
            break
    return cases
