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
