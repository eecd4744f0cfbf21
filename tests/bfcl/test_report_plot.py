"""`edgevox bfcl report`: the comparison of the pinned runs as a table and a PNG chart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from edgevox.bfcl.replay import PINNED_DIR
from edgevox.cli import main
from edgevox.plot import PALETTE

REPO = PINNED_DIR.parents[1]


def _image(path: Path) -> np.ndarray:
    import matplotlib.image

    return matplotlib.image.imread(str(path))[..., :3]  # RGB floats in 0..1


def _has_colour(img: np.ndarray, hex_colour: str, min_pixels: int = 200) -> bool:
    rgb = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return int((np.abs(img - rgb).max(axis=-1) < 0.02).sum()) >= min_pixels


def test_report_draws_the_pinned_runs_and_the_published_rows(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["bfcl", "report", "--out", str(out)]) == 0
    table = (tmp_path / "report.md").read_text()
    assert "| EdgeVox, reply_or_tool grammar, --wire-format json_fenced | 76.0 (76/100) |" in table
    assert "Hammer2.1-0.5b, public leaderboard | 84.00 |" in table
    assert "live_relevance" in table and table == capsys.readouterr().out.strip() + "\n"

    img = _image(tmp_path / "report.png")
    h, w = img.shape[:2]
    assert 300 <= h <= 1200 and 800 <= w <= 2400, img.shape
    assert img.std() > 0.05  # not blank
    ours = ["EdgeVox, policy auto", "EdgeVox, reply_or_tool", "llama-cpp-python"]
    assert all(_has_colour(img, PALETTE[i]) for i in range(len(ours)))  # a bar for each run
    assert not _has_colour(img, PALETTE[len(ours)])  # and no run that was not asked for


def test_the_committed_chart_is_the_one_the_readme_shows():
    png = REPO / "bfcl" / "report.png"
    assert "![" in (REPO / "bfcl" / "README.md").read_text() and "(report.png)" in (
        REPO / "bfcl" / "README.md").read_text()
    assert png.stat().st_size < 150_000 and _image(png).std() > 0.05


def test_report_of_chosen_runs_and_bad_input(tmp_path, capsys):
    run = PINNED_DIR / "qwen25-coder-0.5b.peer.jsonl"
    out = tmp_path / "peer"
    assert main(["bfcl", "report", "--run", f"peer={run}", "--no-reference", "--out", str(out)]) == 0
    table = (tmp_path / "peer.md").read_text()
    assert "| peer | 33.0 (33/100) |" in table and "Hammer" not in table
    assert _image(tmp_path / "peer.png").std() > 0.05

    capsys.readouterr()
    assert main(["bfcl", "report", "--run", "no label", "--out", str(out)]) == 1
    assert main(["bfcl", "report", "--run", f"x={tmp_path / 'missing.jsonl'}", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "expected LABEL=FILE" in err and "missing.jsonl: no run records" in err


@pytest.mark.voice
def test_bench_voice_plots_stage_bars(tmp_path):
    import subprocess
    import sys

    png = tmp_path / "bench.png"
    res = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_voice.py"), "--no-agent",
                          "--limit", "1", "--plot", str(png)], capture_output=True, text=True,
                         timeout=600, cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert "voice / baseline" in res.stdout
    img = _image(png)
    assert img.shape[0] >= 200 and img.shape[1] >= 600 and img.std() > 0.05
    # the end-of-speech wait (first colour) and TTS (fifth) are in every row; STT in the baseline row
    assert _has_colour(img, PALETTE[0]) and _has_colour(img, PALETTE[1]) and _has_colour(img, PALETTE[4])
