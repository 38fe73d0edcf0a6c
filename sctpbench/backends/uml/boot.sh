# The steps every User-Mode Linux guest's PID 1 takes alike, sourced by the uml backend's
# (init.sh: runs one plan) and a lab's (lab/guest_init.sh: a machine serving SSH). Their
# kernel command line is written in one place too (boot.py). The host's filesystem is the
# guest's read-only root. A step that can fail takes the word its host reads errors by
# (SB-ERROR, SB-LAB-ERROR). Environment from the kernel command line: SB_EXPOSE
# (colon-separated host folders under the guest's tmpfs, mounted back read-only) and
# SB_MODULES (the kernel's modules folder, or a folder with only its modules.builtin).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8

mount_kernel_filesystems() {
    mount -t proc proc /proc
    mount -t sysfs sys /sys
}

# mount_exposed ERROR-WORD: SB_EXPOSE's folders, which a tmpfs hid, back from the host (read-only).
mount_exposed() {
    local dir exposed
    IFS=: read -ra exposed <<< "$SB_EXPOSE"
    for dir in "${exposed[@]}"; do
        mkdir -p "$dir" && mount -t hostfs -o "ro,$dir" none "$dir" || echo "$1 cannot mount $dir"
    done
}

# modprobe_root ERROR-WORD: a root of its own for modprobe, under /run (the guest's tmpfs),
# unless the host made one (SB_MODROOT).
# modprobe looks in <root>/lib/modules/<release>; the host has none for the guest's kernel.
# Debian's kernel has its modules in SB_MODULES; the project's kernel has everything built
# in, and modprobe then needs only modules.builtin (all SB_MODULES holds) to say so. The
# kernel loads modules on demand too (SCTP's cookie HMAC, qdiscs): it is pointed at a
# modprobe that uses that root.
modprobe_root() {
    local release
    if [ -n "${SB_MODROOT:-}" ]; then
        # Made by the host (uml/kernel.py: modprobe_root), read-only here like the rest of its files.
        echo "$SB_MODROOT/modprobe" > /proc/sys/kernel/modprobe
        return
    fi
    release=$(uname -r)
    mkdir -p /run/netns /run/modroot/lib/modules
    if [ -d "$SB_MODULES/kernel" ]; then
        ln -s "$SB_MODULES" "/run/modroot/lib/modules/$release"
    else
        mkdir -p "/run/modroot/lib/modules/$release"
        cp "$SB_MODULES/modules.builtin" "/run/modroot/lib/modules/$release/"
        touch "/run/modroot/lib/modules/$release/modules.order" "/run/modroot/lib/modules/$release/modules.builtin.modinfo"
        depmod -b /run/modroot "$release" || echo "$1 depmod failed"
    fi
    printf '#!/bin/sh\nexec /sbin/modprobe -d /run/modroot "$@"\n' > /run/modprobe
    chmod +x /run/modprobe
    echo /run/modprobe > /proc/sys/kernel/modprobe
}
