#!/bin/sh
# Installs Debian's wordnet-base (WordNet 3.0 in /usr/share/wordnet), which plan metrics read through
# NLTK for the paper's Wu-Palmer similarity of action names (analyses/word_similarity.py). Idempotent:
# does nothing when /usr/share/wordnet/data.verb exists. Without root or apt-get it cannot install:
# with --required (the test set-up: tests assert WordNet's numbers) it says what to run and fails;
# without it (plain set-up) it warns and succeeds, because plansight then uses its documented fallback.
set -eu

required=0
[ "${1:-}" = "--required" ] && required=1

if [ -f /usr/share/wordnet/data.verb ]; then
    exit 0
fi

give_up() {
    echo "install-wordnet.sh: $1" >&2
    if [ "$required" -eq 1 ]; then
        exit 1
    fi
    echo "install-wordnet.sh: continuing; plan metrics will use the fallback name similarity" >&2
    exit 0
}

if [ "$(id -u)" -ne 0 ]; then
    give_up "WordNet is not installed and this is not root; run: sudo apt-get install -y wordnet-base"
fi
if ! command -v apt-get >/dev/null 2>&1; then
    give_up "WordNet is not installed and apt-get is missing; install WordNet 3.0 into /usr/share/wordnet"
fi

export DEBIAN_FRONTEND=noninteractive
# a fresh container has no package lists; try without updating first, which is faster when it works
apt-get install -y --no-install-recommends wordnet-base >/dev/null 2>&1 || {
    apt-get update
    apt-get install -y --no-install-recommends wordnet-base
}
[ -f /usr/share/wordnet/data.verb ] || give_up "apt-get finished but /usr/share/wordnet/data.verb is still missing"
