#!/usr/bin/env bash
# Installs every Debian package that building, testing and the demo need.
# Idempotent: installs only what is missing. Runs as root or through sudo.
set -euo pipefail

packages=(
	build-essential pkg-config
	libarchive-dev libssh-dev libzstd-dev liburing-dev libxxhash-dev
	libjson-c-dev libcmocka-dev libacl1-dev libssl-dev
	clang libclang-rt-14-dev
	openssh-server openssh-client iproute2 procps iptables iputils-ping
	libnetfilter-queue-dev
	tar zstd rsync rclone fpart netcat-openbsd iperf3 fio time perl python3
	man-db zsh
	chromium
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
	sudo=(sudo)
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
