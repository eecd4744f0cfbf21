"""Ask llama.cpp itself whether it accepts a grammar -- safely, in a child process.

The child calls ``llama_sampler_init_grammar`` for each grammar and prints whether it
returned a sampler or NULL. A grammar that crashes the child (abort, segfault, out of
memory under a 768 MB address-space cap) or makes it hang is reported as such, and the
remaining grammars run in a fresh child. Test-only.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import ctypes, json, sys
import llama_cpp
_cb = llama_cpp.llama_log_callback(lambda level, text, user: None)  # keep a reference!
llama_cpp.llama_log_set(_cb, ctypes.c_void_p(0))
model_path = sys.argv[1] if len(sys.argv) > 1 else ""
vocab = None
if model_path:
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(model_path.encode(), params)
    if not model:
        print("LOADFAIL", flush=True)
        sys.exit(3)
    vocab = llama_cpp.llama_model_get_vocab(model)
for line in sys.stdin:
    item = json.loads(line)
    smpl = llama_cpp.llama_sampler_init_grammar(vocab, item["g"].encode("utf-8"), item["root"].encode())
    print("ok" if smpl else "null", flush=True)
    if smpl:
        llama_cpp.llama_sampler_free(smpl)
"""


_ACCEPT_CHILD = r"""
import ctypes, json, math, sys
import llama_cpp
_cb = llama_cpp.llama_log_callback(lambda level, text, user: None)
llama_cpp.llama_log_set(_cb, ctypes.c_void_p(0))
llama_cpp.llama_backend_init()
params = llama_cpp.llama_model_default_params()
params.vocab_only = True
model = llama_cpp.llama_model_load_from_file(sys.argv[1].encode(), params)
vocab = llama_cpp.llama_model_get_vocab(model)
eos = llama_cpp.llama_vocab_eos(vocab)
buf = (ctypes.c_int32 * 4096)()

def allowed(smpl, tok):
    data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(tok, 0.0, 0.0))
    arr = llama_cpp.llama_token_data_array(data, 1, -1, False)
    llama_cpp.llama_sampler_apply(smpl, ctypes.byref(arr))
    return not math.isinf(data[0].logit)

for line in sys.stdin:
    job = json.loads(line)
    smpl = llama_cpp.llama_sampler_init_grammar(vocab, job["g"].encode(), b"root")
    assert smpl, "grammar rejected"
    for text in job["texts"]:
        llama_cpp.llama_sampler_reset(smpl)
        raw = text.encode("utf-8")
        n = llama_cpp.llama_tokenize(vocab, raw, len(raw), buf, len(buf), False, True)
        ok = True
        for tok in buf[:n]:
            if not allowed(smpl, tok):
                ok = False
                break
            llama_cpp.llama_sampler_accept(smpl, tok)
        print("yes" if ok and allowed(smpl, eos) else "no", flush=True)
    llama_cpp.llama_sampler_free(smpl)
"""


def llama_accepts(jobs: list[tuple[str, list[str]]], model_path: str | Path) -> list[list[bool]]:
    """For each (grammar, texts): does llama.cpp's grammar sampler let the model write
    exactly each text and then stop?

    Feeds the tokenized text through a grammar sampler, checking that each token is
    allowed before accepting it (so it never aborts), then that EOS is allowed at the end.
    """
    env = {**os.environ, "GGML_NO_BACKTRACE": "1"}
    payload = "".join(json.dumps({"g": g, "texts": t}) + "\n" for g, t in jobs)
    out = subprocess.run([sys.executable, "-c", _ACCEPT_CHILD, str(model_path)], input=payload,
                         text=True, capture_output=True, env=env, timeout=900, preexec_fn=_limit_memory)
    lines = out.stdout.split()
    if out.returncode != 0 or len(lines) != sum(len(t) for _, t in jobs):
        raise RuntimeError(f"oracle failed ({out.returncode}): {out.stderr[-500:]}")
    answers = iter(line == "yes" for line in lines)
    return [[next(answers) for _ in texts] for _, texts in jobs]


def _limit_memory() -> None:  # runs in the child before exec
    import resource

    cap = 768 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def llama_verdicts(grammars: list[str], *, root: str = "root", model_path: str | Path | None = None,
                   timeout: float = 15.0) -> list[str]:
    """For each grammar: "ok" (sampler created), "null" (rejected), "crash" or "hang"."""
    results: list[str] = []
    env = {**os.environ, "GGML_NO_BACKTRACE": "1"}
    while len(results) < len(grammars):
        start = len(results)
        args = [sys.executable, "-c", _CHILD] + ([str(model_path)] if model_path else [])
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env=env, preexec_fn=_limit_memory)
        assert proc.stdin is not None and proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        try:
            for g in grammars[start:]:
                try:
                    proc.stdin.write(json.dumps({"g": g, "root": root}) + "\n")
                    proc.stdin.flush()
                except BrokenPipeError:
                    results.append("crash")
                    break
                if not sel.select(timeout=timeout):
                    results.append("hang")
                    break
                line = proc.stdout.readline().strip()
                if line in ("ok", "null"):
                    results.append(line)
                elif line == "LOADFAIL":
                    raise RuntimeError(f"llama.cpp could not load the vocabulary of {model_path}")
                else:
                    results.append("crash")
                    break
        finally:
            sel.close()
            proc.kill()
            proc.wait()
    return results
