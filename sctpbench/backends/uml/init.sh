#!/bin/bash
# PID 1 of the uml backend's User-Mode Linux guest: runs one run's plan. The host's
# filesystem is the (read-only) root; writable places get a filesystem in memory (ramfs or
# tmpfs: boot.GUEST_FILESYSTEM), the run folder is the host's own, mounted read-write.
# What every guest's PID 1 does alike is boot.sh.
# Environment from the kernel command line (boot.py), besides boot.sh's: SB_FSTAB (the
# host's file of the guest's mounts, boot.fstab), SB_RUN (where
# the run folder is mounted in the guest, the same path for every run: backend.GUEST_RUN),
# SB_RUN_HOST (the host's path to it, a link of fixed length), SB_PYTHON (interpreter), SB_ENTRY (the module that runs the plan inside: the
# netns engine's command, or another built on it).
# The wall clock is the kernel's to set (backend.TIME_TRAVEL): work here costs virtual time.
# ${0%/*}, not $(dirname "$0"): a program start is the dearest thing a guest does.
. "${0%/*}/boot.sh"
export PYTHONDONTWRITEBYTECODE=1

halt() {
    sync
    echo o > /proc/sysrq-trigger
    sleep 10   # PID 1 must not exit: the kernel would panic before powering off
}

# Every mount at once (boot.py: fstab): the kernel's filesystems, memory where the guest
# writes, the exposed folders, the run folder. The file is read before the ramfs on /tmp
# hides where it is.
if ! mount -a -T "$SB_FSTAB"; then
    echo "SB-ERROR cannot mount the guest's filesystems or the run folder $SB_RUN_HOST (see $SB_FSTAB)"
    halt
fi
# Once /run is the guest's own.
modprobe_root SB-ERROR
# No `ip link set lo up` here: nothing of a run uses the guest's own loopback (each namespace
# brings up its own), and it was a program start.
# From the project root this script is in, `-m` imports that tree's sctpbench, the one
# the host runs, not whichever the interpreter's install points at (another clone's).
cd "${0%/*}/../../.." || echo "SB-ERROR cannot enter the project folder of $0"
# -S: no site (the engine is standard library only, and its finders cost a guest a third
# of the interpreter's start); the project root is the working folder, so `-m` finds it.
"$SB_PYTHON" -S -m "${SB_ENTRY:-sctpbench.backends.netns.entry}" "$SB_RUN" --modprobe-root "${SB_MODROOT:-/run/modroot}"
echo "SB-EXIT $?"
halt
