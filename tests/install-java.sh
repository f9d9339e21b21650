#!/bin/sh
# Installs Debian's headless Java runtime for ENHSP (the numeric planner `up-enhsp` ships as a jar), which
# tests/test_planned_plans.py runs through unified-planning and `plansight plan --recover` runs on numeric
# domains. Idempotent: does nothing when `java` is already on PATH. Without root it cannot install, so it
# says what to run and fails, rather than letting the test suite run without the planner.
set -eu

if command -v java >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-java.sh: java is not installed and this is not root; run: sudo apt-get install -y default-jre-headless" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-java.sh: java is not installed and apt-get is missing; install a Java runtime (>= 17) by hand" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# a fresh container has no package lists; try without updating first, which is faster when it works
apt-get install -y --no-install-recommends default-jre-headless >/dev/null 2>&1 || {
    apt-get update
    apt-get install -y --no-install-recommends default-jre-headless
}
command -v java >/dev/null 2>&1 || { echo "install-java.sh: apt-get finished but java is still missing" >&2; exit 1; }
