#!/usr/bin/env bash
# Set up everything EdgeVox needs, idempotently: system libraries, a virtual
# environment, llama-cpp-python built with CPU flags that are safe on this machine,
# EdgeVox with its extras, and the default models (verified by sha256).
# A second run reuses all of it and takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${EDGEVOX_VENV:-.venv}"
LLAMA_VERSION="0.3.36"
PY="${PYTHON:-python3}"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

# 1. System packages: PortAudio for live audio, a C/C++ compiler and venv for the build,
#    tmux for the terminal-face tests.
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
"$PY" -c "import venv, ensurepip" >/dev/null 2>&1 || missing+=(python3-venv)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)  # the face's tests drive a real terminal
if command -v ldconfig >/dev/null 2>&1 && ! ldconfig -p 2>/dev/null | grep -q libportaudio.so.2; then
  missing+=(libportaudio2)
fi
if ((${#missing[@]})); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing system packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "missing system packages: ${missing[*]} - install them with: sudo apt-get install ${missing[*]}"
    say "(without libportaudio2 only live audio is unavailable; WAV files still work)"
  fi
fi

# 2. Virtual environment.
if [[ ! -x "$VENV/bin/python" ]]; then
  say "creating virtual environment $VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip wheel setuptools
fi
PIP=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)

# 3. llama-cpp-python, built from source with explicit CPU flags (see README: a default
#    -march=native build dies with SIGILL on VMs that report AMX without enabling it).
if ! "$VENV/bin/python" -c "import sys, llama_cpp; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
  if [[ -n "${EDGEVOX_CMAKE_ARGS:-}" ]]; then
    export CMAKE_ARGS="$EDGEVOX_CMAKE_ARGS"
    extra=(--no-cache-dir --force-reinstall)
  else
    CMAKE_ARGS="$(bash scripts/cpu_flags.sh)"
    export CMAKE_ARGS
    extra=()
  fi
  export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
  say "building llama-cpp-python $LLAMA_VERSION with CMAKE_ARGS=$CMAKE_ARGS (first time: 5-11 minutes)"
  "${PIP[@]}" "${extra[@]}" "llama-cpp-python==$LLAMA_VERSION"
fi

# 4. EdgeVox itself (editable) with the local-model, voice, fast-decoding, server, test, wake-word and Wyoming extras.
stamp="$VENV/.edgevox-installed"
want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  say "installing edgevox and its extras"
  "${PIP[@]}" -e ".[llama,voice,fast,server,dev,wake,wyoming,plot]"
  echo "$want" > "$stamp"
fi

# 5. Default models: LLM, Gemma 3 270M base (grammar tests), Whisper tiny.en, Piper voice,
#    MiniLM sentence embeddings (the voice assistant's relevance gate).
for model in ${EDGEVOX_MODELS:-qwen2.5-coder-0.5b gemma-3-270m whisper-tiny.en piper-joe-medium minilm-l6}; do
  "$VENV/bin/edgevox" models path "$model" >/dev/null
done

# 6. BFCL data (the regression gate's cases and answers): pip downloads the pinned
#    bfcl-eval wheel (no deps) and its data is unpacked into the cache, digest-checked.
#    Offline: EDGEVOX_BFCL_WHEEL=/path/to/bfcl_eval-*.whl or an unpacked data directory.
if [[ -n "${EDGEVOX_BFCL_WHEEL:-}" ]]; then
  bfcl_source=(--wheel "$EDGEVOX_BFCL_WHEEL")
  [[ -d "$EDGEVOX_BFCL_WHEEL" ]] && bfcl_source=(--data "$EDGEVOX_BFCL_WHEEL")
  "$VENV/bin/edgevox" bfcl fetch "${bfcl_source[@]}" >/dev/null
else
  "$VENV/bin/edgevox" bfcl fetch >/dev/null
fi
say "ready: $VENV/bin/edgevox"
