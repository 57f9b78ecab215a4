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

# one dpkg-query for them all (one each took seconds of every `make check-unit` on a busy machine)
declare -A installed
while read -r p status; do
	[[ $status == *" ok installed" ]] && installed[$p]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null)
missing=()
for p in "${packages[@]}"; do
	[ -n "${installed[$p]:-}" ] || missing+=("$p")
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
