#!/bin/bash
# PID 1 of the User-Mode Linux guest. The host's filesystem is the (read-only) root;
# writable places get tmpfs, the run folder is the host's own, mounted read-write.
# Environment from the kernel command line: SB_RUN (run folder), SB_PYTHON (interpreter),
# SB_EXPOSE (colon-separated host folders under the tmpfs places, mounted back read-only),
# SB_MODULES (the kernel's modules folder, or a folder with only its modules.builtin),
# SB_ENTRY (the module that runs the plan inside: the netns backend's, or another built on it).
# The wall clock is the kernel's to set (uml.TIME_TRAVEL): work here costs virtual time.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PYTHONDONTWRITEBYTECODE=1 LC_ALL=C.UTF-8

halt() {
    sync
    echo o > /proc/sysrq-trigger
    sleep 10   # PID 1 must not exit: the kernel would panic before powering off
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/tmp 2>/dev/null
IFS=: read -ra expose <<< "$SB_EXPOSE"
for dir in "${expose[@]}"; do
    mkdir -p "$dir" && mount -t hostfs -o "ro,$dir" none "$dir" || echo "SB-ERROR cannot mount $dir"
done
# Once the project is visible again (it may live under /tmp, hidden by the tmpfs above).
bash "$(dirname "$0")/modroot.sh" "$SB_MODULES" SB-ERROR
mkdir -p "$SB_RUN"
if ! mount -t hostfs -o "$SB_RUN" none "$SB_RUN"; then
    echo "SB-ERROR cannot mount the run folder $SB_RUN"
    halt
fi
ip link set lo up
# From the project root this script is in, `-m` imports that tree's sctpbench, the one
# the host runs, not whichever the interpreter's install points at (another clone's).
cd "$(dirname "$0")/../../.." || echo "SB-ERROR cannot enter the project folder of $0"
"$SB_PYTHON" -m "${SB_ENTRY:-sctpbench.backends.netns.entry}" "$SB_RUN" --modprobe-root /run/modroot
echo "SB-EXIT $?"
halt
