#!/usr/bin/env bash
# Builds selfheal's sandbox base image with no container registry: debootstrap + docker import.
#
#   docker/build-base-image.sh [IMAGE]      (default selfheal-sandbox:bookworm; needs root)
#
# The image carries Python 3 with venv, pip, pytest and coverage from Debian's own packages, so a
# heal of a repo without third-party dependencies needs no network at all. It is cached by name:
# an existing image is reused unless FORCE=1. For tests and air-gapped users; everyone else can
# use a public python image (selfheal's default).
set -euo pipefail

image="${1:-selfheal-sandbox:bookworm}"
suite="${SUITE:-bookworm}"
mirror="${MIRROR:-http://deb.debian.org/debian}"

if [ -z "${FORCE:-}" ] && docker image inspect "$image" >/dev/null 2>&1; then
    echo "base image $image is cached"
    exit 0
fi
command -v debootstrap >/dev/null || { echo "needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }

root="$(mktemp -d /var/tmp/selfheal-rootfs.XXXXXX)"
trap 'rm -rf "$root"' EXIT
echo "debootstrap $suite into $root ..."
debootstrap --variant=minbase \
    --include=python3,python3-venv,python3-pip,python3-pytest,python3-coverage,ca-certificates \
    "$suite" "$root" "$mirror" >/dev/null
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* \
       "$root"/usr/share/man/* "$root"/usr/share/locale/*
tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3"]' \
    - "$image" >/dev/null
echo "built $image"
