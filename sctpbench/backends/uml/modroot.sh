#!/bin/sh
# Gives modprobe a root of its own in a guest: modroot.sh MODULES ERROR-WORD
# modprobe looks in <root>/lib/modules/<release>; the host has none for the guest's kernel.
# Debian's kernel has its modules in MODULES; the project's kernel has everything built in,
# and modprobe then needs only modules.builtin (all MODULES holds) to say so. The kernel
# loads modules on demand too (SCTP's cookie HMAC, qdiscs): it is pointed at a modprobe
# that uses that root. Both guests' init scripts (backends/uml_init.sh, lab/guest_init.sh)
# run this once /run is theirs.
modules=$1
error=$2
release=$(uname -r)
mkdir -p /run/netns /run/modroot/lib/modules
if [ -d "$modules/kernel" ]; then
    ln -s "$modules" "/run/modroot/lib/modules/$release"
else
    mkdir -p "/run/modroot/lib/modules/$release"
    cp "$modules/modules.builtin" "/run/modroot/lib/modules/$release/"
    touch "/run/modroot/lib/modules/$release/modules.order" "/run/modroot/lib/modules/$release/modules.builtin.modinfo"
    depmod -b /run/modroot "$release" || echo "$error depmod failed"
fi
printf '#!/bin/sh\nexec /sbin/modprobe -d /run/modroot "$@"\n' > /run/modprobe
chmod +x /run/modprobe
echo /run/modprobe > /proc/sys/kernel/modprobe
