"""Per-turn latency metrics, one compact line for people and a dict for JSON.

Every time is in seconds from the end of the person's speech (the end of the last
voiced frame), except the component costs (`stt_compute_s`, `tts_first_chunk_s`,
`llm_*`), which are measured from the moment their input was ready. With a file
source that is read faster than real time, the end of speech is placed `endpoint_s`
before the moment the endpointer decided (what a live microphone would have waited),
so file and live numbers mean the same thing.
"""

from __future__ import annotations

import resource
import sys
from dataclasses import asdict, dataclass

#: The stages of `TurnMetrics.stages()`, in order.
STAGES = ("end-of-speech wait", "stt", "llm first token", "first sentence", "tts first chunk")


@dataclass
class TurnMetrics:
    speech_s: float | None = None            # length of the person's utterance
    endpoint_s: float | None = None          # silence waited before deciding speech had ended
    stt_s: float | None = None               # end of speech -> transcript ready
    stt_compute_s: float | None = None       # Whisper time for the transcript used
    stt_speculative: bool = False            # transcript came from the speculative run
    llm_first_token_s: float | None = None   # transcript -> first reply text
    llm_first_sentence_s: float | None = None  # transcript -> first complete sentence
    llm_total_s: float | None = None         # transcript -> reply finished (or cancelled)
    tts_first_chunk_s: float | None = None   # first sentence -> its first audio synthesized
    ttfa_s: float | None = None              # end of speech -> first reply sample out
    total_s: float | None = None             # end of speech -> last reply sample out
    reply_audio_s: float | None = None
    tts_rtf: float | None = None             # synthesis time / audio time
    interrupted: bool = False

    def to_dict(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}

    def stages(self) -> list[tuple[str, float]]:
        """Time to first audio split into consecutive stages, in seconds (see `STAGES`).

        Stages not reached (a cancelled turn, a reply with no sentence) are left out; a
        negative difference (a transcript that was ready before the endpointer decided, or
        a first sentence that came with the first token) counts as zero. The terminal face
        and `benchmarks/bench_voice.py --plot` draw exactly these numbers.
        """
        parts = {
            "end-of-speech wait": self.endpoint_s,
            "stt": None if self.stt_s is None else self.stt_s - (self.endpoint_s or 0.0),
            "llm first token": self.llm_first_token_s,
            "first sentence": (None if self.llm_first_sentence_s is None or self.llm_first_token_s is None
                               else self.llm_first_sentence_s - self.llm_first_token_s),
            "tts first chunk": self.tts_first_chunk_s,
        }
        return [(name, max(0.0, v)) for name, v in parts.items() if v is not None]

    def __str__(self) -> str:
        def f(v: float | None) -> str:
            return "-" if v is None else f"{v:.2f}s"

        stt = f"stt {f(self.stt_s)}"
        if self.stt_compute_s is not None:
            stt += f" (whisper {f(self.stt_compute_s)}{', speculative' if self.stt_speculative else ''})"
        parts = [stt, f"llm 1st tok {f(self.llm_first_token_s)}, 1st sent {f(self.llm_first_sentence_s)}",
                 f"tts 1st chunk {f(self.tts_first_chunk_s)}", f"first audio {f(self.ttfa_s)}",
                 f"total {f(self.total_s)}"]
        if self.interrupted:
            parts.append("interrupted")
        return " | ".join(parts)


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far (ru_maxrss), in MiB."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024
