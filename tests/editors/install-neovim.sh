#!/bin/sh
# Installs Debian's neovim for tests/test_neovim_e2e.py (an end-to-end test through Neovim's own LSP
# client). Idempotent: does nothing when `nvim` is already on PATH. Without root it cannot install,
# so it says what to run and fails, rather than letting the test suite run without the editor.
set -eu

if command -v nvim >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-neovim.sh: nvim is not installed and this is not root; run: sudo apt-get install -y neovim" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-neovim.sh: nvim is not installed and apt-get is missing; install Neovim >= 0.7 by hand" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# a fresh container has no package lists; try without updating first, which is faster when it works
apt-get install -y --no-install-recommends neovim >/dev/null 2>&1 || {
    apt-get update
    apt-get install -y --no-install-recommends neovim
}
command -v nvim >/dev/null 2>&1 || { echo "install-neovim.sh: apt-get finished but nvim is still missing" >&2; exit 1; }
