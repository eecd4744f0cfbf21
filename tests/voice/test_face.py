"""The terminal face in a real terminal: `edgevox voice --tui` under tmux, on the real models.

Each run starts the command in its own tmux server (a private socket), waits for it to
finish (the shell then writes the exit status to a file and keeps the pane open), and
reads the screen with `tmux capture-pane`. Keys are sent only after the screen shows the
state they are meant for, so nothing depends on how fast this machine happens to be.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from edgevox.voice.audio import load_audio
from edgevox.voice.metrics import STAGES

pytestmark = [pytest.mark.voice, pytest.mark.model]

REPO = Path(__file__).resolve().parents[2]
BOUND_S = 480  # generous: three models load and a turn runs on a shared 2-core machine


class Tmux:
    """One private tmux server running one command in a pane of a fixed size."""

    def __init__(self, tmp: Path, argv: list[str], width: int = 150, height: int = 40):
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed (scripts/setup.sh installs it)")
        self.socket = f"edgevox-face-{uuid.uuid4().hex[:8]}"
        self.exit_file = tmp / "exit-status"
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in os.environ.items()
                       if k.startswith(("EDGEVOX_", "HF_", "OMP_")) or k in ("HOME", "PATH"))
        cmd = (f"cd {shlex.quote(str(REPO))} && env {env} {shlex.join(argv)}; "
               f"echo $? > {shlex.quote(str(self.exit_file))}; sleep 3600")
        self._tmux("new-session", "-d", "-x", str(width), "-y", str(height), cmd)

    def _tmux(self, *args: str) -> str:
        # pytest exports COLUMNS/LINES for its own output; the pane must see its real size
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True,
                              text=True, env=env).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-J")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def wait_for(self, text: str, bound_s: float = BOUND_S) -> str:
        deadline = time.monotonic() + bound_s
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            if self.exit_file.exists():
                break
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared on the screen:\n{self.screen()}")

    def wait_exit(self, bound_s: float = BOUND_S) -> int:
        deadline = time.monotonic() + bound_s
        while time.monotonic() < deadline:
            if self.exit_file.exists() and self.exit_file.read_text().strip():
                return int(self.exit_file.read_text())
            time.sleep(0.2)
        raise AssertionError(f"the command did not finish within {bound_s}s:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def _voice(qwen_path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "edgevox", "voice", "--tui", "--model", str(qwen_path),
            "--preset", "qwen25", *extra]


@pytest.fixture()
def tmux_run(tmp_path):
    started: list[Tmux] = []

    def start(argv: list[str], **size: int) -> Tmux:
        t = Tmux(tmp_path, argv, **size)
        started.append(t)
        return t

    yield start
    for t in started:
        t.close()


def test_face_shows_a_whole_turn_and_exits(tmux_run, qwen_path, request_wav, tmp_path):
    out = tmp_path / "reply.wav"
    term = tmux_run(_voice(qwen_path, "--input", str(request_wav), "--output", str(out)))
    status = term.wait_exit()
    screen = term.screen()
    print(screen)
    assert status == 0, screen
    heard = next(line for line in screen.splitlines() if line.strip().startswith("you "))
    assert "kitchen" in heard.lower() and "light" in heard.lower(), screen
    assert 'set_light(room="kitchen"' in screen and "→" in screen, screen
    assert "s to first audio" in screen and all(stage in screen for stage in STAGES), screen
    assert "● stopped" in screen and "interrupted" not in screen
    assert len(load_audio(out)) > 16000  # a spoken reply was written


def test_face_waits_for_the_wake_word_then_takes_the_request(tmux_run, qwen_path, tts, tmp_path):
    """`--tui --wake`: the face shows it waiting for the wake word (the file is fed at
    speaking pace, so the two seconds before "Okay Nabu" are on screen), then the turn."""
    from edgevox.voice.audio import SAMPLE_RATE, resample, write_wav

    def say(text: str) -> np.ndarray:
        return resample(tts.synthesize_all(text), tts.sample_rate, SAMPLE_RATE)

    gap = lambda s: np.zeros(int(s * SAMPLE_RATE), np.float32)  # noqa: E731
    request = tmp_path / "wake_then_request.wav"
    write_wav(request, np.concatenate([gap(2.0), say("Okay Nabu."), gap(0.4), say("Turn on the kitchen light."),
                                       gap(1.0)]), SAMPLE_RATE)
    term = tmux_run(_voice(qwen_path, "--wake", "okay_nabu", "--realtime", "--input", str(request),
                           "--output", str(tmp_path / "reply.wav")))
    waiting = term.wait_for("● waiting for wake word")
    assert "say the wake word" in waiting and "you " not in waiting, waiting
    status = term.wait_exit()
    screen = term.screen()
    print(screen)
    assert status == 0, screen
    assert "woke on okay_nabu" in screen, screen
    heard = next(line for line in screen.splitlines() if line.strip().startswith("you "))
    assert "kitchen" in heard.lower() and "nabu" not in heard.lower(), screen
    assert 'set_light(room="kitchen"' in screen, screen


def test_cancel_key_ends_the_turn_while_it_speaks(tmux_run, qwen_path, tts, tmp_path):
    request = tmp_path / "story.wav"
    tts.to_wav("Tell me a long story about a brave little dragon.", request)
    out = tmp_path / "reply.wav"
    # --realtime: the reply plays at speaking pace, so "speaking" lasts seconds, not milliseconds
    term = tmux_run(_voice(qwen_path, "--policy", "auto", "--realtime", "--input", str(request),
                           "--output", str(out)))
    term.wait_for("● speaking")
    term.keys("c")
    status = term.wait_exit()
    screen = term.screen()
    print(screen)
    assert status == 0, screen
    assert "interrupted (turn cancelled)" in screen, screen
    assert "dragon" in screen.lower()


def test_mute_and_quit_keys(tmux_run, qwen_path, tmp_path):
    # five minutes of silence at speaking pace: only the quit key can end this run in time
    from edgevox.voice.audio import SAMPLE_RATE, write_wav

    quiet = tmp_path / "quiet.wav"
    write_wav(quiet, np.zeros(300 * SAMPLE_RATE, np.float32), SAMPLE_RATE)
    term = tmux_run(_voice(qwen_path, "--realtime", "--input", str(quiet)))
    term.wait_for("● listening")
    term.keys("m")
    term.wait_for("● muted")
    term.keys("m")
    term.wait_for("● listening")
    term.keys("q")
    assert term.wait_exit(120) == 0
    assert "● stopped" in term.screen()


def test_too_small_a_terminal_or_no_sound_card_is_one_line(tmux_run, request_wav, tmp_path):
    term = tmux_run([sys.executable, "-m", "edgevox", "voice", "--tui", "--input", str(request_wav)],
                    width=50, height=10)
    assert term.wait_exit(60) == 1, term.screen()
    lines = [ln for ln in term.screen().splitlines() if ln.strip()]
    assert len(lines) == 1 and "the terminal is 50x10" in lines[0], lines  # -J joins the wrapped line
    # live mode with a device that cannot exist: one sentence on stderr, nothing drawn
    res = subprocess.run([sys.executable, "-m", "edgevox", "voice", "--tui", "--input-device",
                          "no-such-device-0x5f"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert res.returncode == 1 and res.stdout == "", res
    assert len(res.stderr.strip().splitlines()) == 1 and "device" in res.stderr, res.stderr


def test_chat_face_shows_the_typed_turn(qwen_path):
    res = subprocess.run([sys.executable, "-m", "edgevox", "chat", "--tui", "--model", str(qwen_path),
                          "--preset", "qwen25", "--tools", "home", "--prompt", "Turn on the kitchen light."],
                         capture_output=True, text=True, timeout=BOUND_S, cwd=REPO)
    print(res.stdout)
    assert res.returncode == 0, res.stderr
    assert "Turn on the kitchen light." in res.stdout and "set_light(" in res.stdout
    assert "llm first token" in res.stdout and "● ready" in res.stdout
