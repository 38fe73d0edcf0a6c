#!/bin/bash
# PID 1 of the uml backend's User-Mode Linux guest: runs one run's plan. The host's
# filesystem is the (read-only) root; writable places get tmpfs, the run folder is the
# host's own, mounted read-write. What every guest's PID 1 does alike is boot.sh.
# Environment from the kernel command line (boot.py), besides boot.sh's: SB_RUN (where
# the run folder is mounted in the guest, the same path for every run: backend.GUEST_RUN),
# SB_RUN_HOST (the host's path to it, a link of fixed length), SB_PYTHON (interpreter), SB_ENTRY (the module that runs the plan inside: the
# netns engine's command, or another built on it).
# The wall clock is the kernel's to set (backend.TIME_TRAVEL): work here costs virtual time.
. "$(dirname "$0")/boot.sh"
export PYTHONDONTWRITEBYTECODE=1

halt() {
    sync
    echo o > /proc/sysrq-trigger
    sleep 10   # PID 1 must not exit: the kernel would panic before powering off
}

mount_kernel_filesystems
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp 2>/dev/null
mount_exposed SB-ERROR
# Once /run is the guest's own.
modprobe_root SB-ERROR
mkdir -p "$SB_RUN"
if ! mount -t hostfs -o "$SB_RUN_HOST" none "$SB_RUN"; then
    echo "SB-ERROR cannot mount the run folder $SB_RUN_HOST"
    halt
fi
ip link set lo up
# From the project root this script is in, `-m` imports that tree's sctpbench, the one
# the host runs, not whichever the interpreter's install points at (another clone's).
cd "$(dirname "$0")/../../.." || echo "SB-ERROR cannot enter the project folder of $0"
"$SB_PYTHON" -m "${SB_ENTRY:-sctpbench.backends.netns.entry}" "$SB_RUN" --modprobe-root /run/modroot
echo "SB-EXIT $?"
halt
