"""sctpbench: emulation testbed orchestrator for multihomed SCTP."""

__version__ = "0.1.0"
