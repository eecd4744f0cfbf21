#!/usr/bin/env bash
# Print CMAKE_ARGS for a portable llama.cpp CPU build on this machine.
# Never -march=native on x86-64: some VMs report AMX in cpuid but do not enable it,
# and ggml's AMX kernels then die with SIGILL. Instead enable each SIMD level the
# CPU flags prove, and leave AMX off.
set -euo pipefail
arch="$(uname -m)"
if [[ "$arch" == "x86_64" ]]; then
  flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
  has() { [[ " $flags " == *" $1 "* ]]; }
  args=(-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF)
  has avx && args+=(-DGGML_AVX=ON)
  has avx2 && args+=(-DGGML_AVX2=ON)
  has fma && args+=(-DGGML_FMA=ON)
  has f16c && args+=(-DGGML_F16C=ON)
  has bmi2 && args+=(-DGGML_BMI2=ON)
  if has avx512f; then
    args+=(-DGGML_AVX512=ON)
    has avx512_vnni && args+=(-DGGML_AVX512_VNNI=ON)
  fi
  echo "${args[*]}"
elif [[ "$arch" == "aarch64" || "$arch" == "arm64" ]]; then
  # Raspberry Pi 4/5 and other ARM boards: native tuning is safe there.
  echo "-DGGML_NATIVE=ON"
else
  echo "-DGGML_NATIVE=OFF"
fi
