#!/bin/bash
# PID 1 of a lab guest: one machine of the lab, reached over SSH (lab/guests.py boots it).
# The host's filesystem is the (read-only) root; writable places get tmpfs. Unlike the uml
# backend's guest (backends/uml/init.sh) it runs no plan: it serves SSH until it is killed,
# and whoever drives it over SSH (the ansible backend) sets up the rest, ip_forward included.
# What every guest's PID 1 does alike is backends/uml/boot.sh (SB_EXPOSE, SB_MODULES).
# Environment from the kernel command line, besides boot.sh's: SB_LAB_HOST (the plan's host
# name, made the hostname), SB_LAB_ADDRESS (eth0's address/prefix on the management network),
# SB_LAB_SSH (the host folder with the lab's host key and authorized_keys), SB_LAB_HOME (root's
# home, given a tmpfs: a writable home as on a fresh machine, without the host's shell start-up
# files, which take seconds in a guest and would on every SSH command), SB_LAB_NICS (on shared
# virtual time: ethN=MAC of every NIC, which are virtio NICs named in probe order).
. "$(dirname "$0")/../backends/uml/boot.sh"

mount_kernel_filesystems
mount -t tmpfs tmpfs /run
# Copied before tmpfs hides /tmp and /var/tmp, where the lab's folder may be (lab/state.py refuses one under /run).
mkdir -p -m 0700 /run/ssh /run/sshd
cp "$SB_LAB_SSH/ssh_host_ed25519_key" "$SB_LAB_SSH/authorized_keys" /run/ssh/ || echo "SB-LAB-ERROR cannot read the lab's keys in $SB_LAB_SSH"
chmod 0600 /run/ssh/ssh_host_ed25519_key
modprobe_root SB-LAB-ERROR
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /var/tmp
[ -n "$SB_LAB_HOME" ] && [ "$SB_LAB_HOME" != / ] && mount -t tmpfs -o mode=0700 tmpfs "$SB_LAB_HOME"
mount_exposed SB-LAB-ERROR
# Ansible's multiprocessing needs POSIX shared memory; sessions with a terminal need ptys.
# /dev is the guest's own devtmpfs (CONFIG_DEVTMPFS_MOUNT), without these folders.
mkdir -p /dev/shm /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || echo "SB-LAB-ERROR cannot mount /dev/shm"
mount -t devpts -o ptmxmode=0666 devpts /dev/pts 2>/dev/null
hostname "$SB_LAB_HOST"
ip link set lo up
# virtio NICs (shared virtual time) are named in probe order: give each its name by MAC
# (SB_LAB_NICS: ethN=MAC,...), through temporary names, as two may swap.
if [ -n "${SB_LAB_NICS:-}" ]; then
    IFS=, read -ra wanted <<< "$SB_LAB_NICS"
    for dev in /sys/class/net/eth*; do ip link set "${dev##*/}" name "sb${dev##*/eth}"; done
    for pair in "${wanted[@]}"; do
        mac=${pair#*=}
        for dev in /sys/class/net/sb*; do
            [ "$(cat "$dev/address")" = "$mac" ] && ip link set "${dev##*/}" name "${pair%%=*}"
        done
    done
    [ -e /sys/class/net/eth0 ] || echo "SB-LAB-ERROR no NIC with eth0's MAC among: $(cat /sys/class/net/*/address | tr '\n' ' ')"
fi
ip addr add "$SB_LAB_ADDRESS" dev eth0 && ip link set eth0 up || echo "SB-LAB-ERROR cannot configure eth0"
/usr/sbin/sshd -D -o UsePAM=no -o StrictModes=no -o AuthorizedKeysFile=/run/ssh/authorized_keys \
    -o PermitRootLogin=prohibit-password -o PasswordAuthentication=no -o UseDNS=no \
    -o PidFile=/run/sshd.pid -h /run/ssh/ssh_host_ed25519_key -E /run/ssh/sshd.log &
# Ready once sshd listens on port 22 (0016, state 0A in /proc/net/tcp), not when it was started.
for _ in $(seq 200); do
    grep -q ':0016 00000000:0000 0A' /proc/net/tcp && break
    kill -0 $! 2>/dev/null || break
    sleep 0.05
done
if grep -q ':0016 00000000:0000 0A' /proc/net/tcp; then
    echo "SB-LAB-READY $SB_LAB_HOST"
else
    echo "SB-LAB-ERROR sshd does not listen:"
    cat /run/ssh/sshd.log
fi
# PID 1 must not exit (the kernel would panic); bash reaps the orphans sessions leave.
while :; do
    sleep 3600 &
    wait $!
done
