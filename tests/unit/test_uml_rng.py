"""The uml backend's seeding of the guest kernel's random numbers (kernel/patches/0005): the
run's seed as `random.seed=<16 hex digits>` for a kernel whose image has the parameter, nothing
for one without (Debian's, or a project build before 0005), and guest.json says which."""

from __future__ import annotations

from pathlib import Path

from sctpbench.backends.uml import backend, kernel


def _kernel(tmp_path: Path, image: bytes, origin: str = "project") -> kernel.Kernel:
    binary = tmp_path / origin / "linux"
    binary.parent.mkdir()
    binary.write_bytes(image)
    return kernel.Kernel(binary=binary, release="6.1", origin=origin, time_travel=True, modules=tmp_path,
                         config_sha256=None, detail="")


def test_a_kernel_with_the_parameter_gets_the_seed_in_hex_to_64_bits(tmp_path: Path) -> None:
    k = _kernel(tmp_path, b"\x7fELF\0random.trust_cpu\0random.seed\0")
    assert backend.rng_words(k, 7) == ["random.seed=0000000000000007"]
    assert backend.rng_words(k, 2**64 + 10) == ["random.seed=000000000000000a"]  # seed + repetition - 1 may pass 2**64
    facts = backend.guest_facts(k, [str(k.binary), "quiet", *backend.rng_words(k, 7)], "virtual")
    assert facts["rng"] == "seeded: random.seed=0000000000000007 (the run's seed; kernel/patches/0005)"


def test_a_kernel_without_it_gets_nothing_and_the_facts_say_so(tmp_path: Path) -> None:
    for k in (_kernel(tmp_path, b"\x7fELF\0random.trust_cpu\0random.seedling\0"),
              _kernel(tmp_path, b"\x7fELF\0random.seed\0", origin="debian")):
        assert backend.rng_words(k, 7) == []
        facts = backend.guest_facts(k, [str(k.binary), "quiet"], "virtual")
        assert str(facts["rng"]).startswith("the host's entropy"), facts
